#include "simulation/html_report.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>

#include "model/error.h"
#include "simulation/run_comparison.h"

namespace scoria::simulation {

namespace {

using Json = nlohmann::ordered_json;

constexpr const char* kPalette[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd",
                                    "#ff7f0e", "#17becf", "#8c564b", "#e377c2"};
constexpr double kWidth = 720, kHeight = 300;
constexpr double kLeft = 64, kRight = 16, kTop = 32, kBottom = 48;

std::string escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

// Round tick steps: 1, 2 or 5 times a power of ten, about `n` of them.
double tick_step(double range, int n) {
  if (range <= 0) return 1;
  const double raw = range / n;
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (raw <= m * p) return m * p;
  return 10 * p;
}

// Time axis in the unit that reads best.
struct TimeUnit {
  double seconds;
  const char* name;
};
TimeUnit time_unit(double max_s) {
  if (max_s >= 2 * 86400) return {86400, "days"};
  if (max_s >= 2 * 3600) return {3600, "hours"};
  if (max_s >= 2 * 60) return {60, "minutes"};
  return {1, "seconds"};
}

struct Series {
  std::string name;
  const char* color;
  bool dashed;
  std::vector<double> x, y;
};

// A line chart with labelled axes, ticks and a legend; each series is a
// polyline of class "series" holding its points.
std::string line_chart(const std::string& id, const std::string& title, const std::string& x_label,
                       const std::string& y_label, const std::vector<Series>& series, double y_max,
                       bool percent) {
  double x_max = 0;
  for (const auto& s : series)
    for (double x : s.x) x_max = std::max(x_max, x);
  if (x_max <= 0) x_max = 1;
  if (y_max <= 0) y_max = 1;
  const double pw = kWidth - kLeft - kRight, ph = kHeight - kTop - kBottom;
  const auto px = [&](double x) { return kLeft + x / x_max * pw; };
  const auto py = [&](double y) { return kTop + ph - std::min(y, y_max) / y_max * ph; };
  std::string svg = "<figure><svg class=\"chart\" data-chart=\"" + escape(id) +
                    "\" viewBox=\"0 0 " + num(kWidth) + " " + num(kHeight) +
                    "\" role=\"img\" aria-label=\"" + escape(title) + "\">";
  svg += "<text class=\"title\" x=\"" + num(kLeft) + "\" y=\"20\">" + escape(title) + "</text>";
  // Grid and ticks.
  const double ys = tick_step(y_max, 5);
  for (double y = 0; y <= y_max + 1e-9; y += ys) {
    svg += "<line class=\"grid\" x1=\"" + num(kLeft) + "\" x2=\"" + num(kLeft + pw) + "\" y1=\"" +
           num(py(y)) + "\" y2=\"" + num(py(y)) + "\"/>";
    svg += "<text class=\"tick\" text-anchor=\"end\" x=\"" + num(kLeft - 6) + "\" y=\"" +
           num(py(y) + 4) + "\">" + (percent ? num(std::round(y * 100)) + "%" : num(y)) + "</text>";
  }
  const double xs = tick_step(x_max, 8);
  for (double x = 0; x <= x_max + 1e-9; x += xs) {
    svg += "<line class=\"axis\" x1=\"" + num(px(x)) + "\" x2=\"" + num(px(x)) + "\" y1=\"" +
           num(kTop + ph) + "\" y2=\"" + num(kTop + ph + 5) + "\"/>";
    svg += "<text class=\"tick\" text-anchor=\"middle\" x=\"" + num(px(x)) + "\" y=\"" +
           num(kTop + ph + 18) + "\">" + num(x) + "</text>";
  }
  svg += "<line class=\"axis\" x1=\"" + num(kLeft) + "\" x2=\"" + num(kLeft + pw) + "\" y1=\"" +
         num(kTop + ph) + "\" y2=\"" + num(kTop + ph) + "\"/>";
  svg += "<line class=\"axis\" x1=\"" + num(kLeft) + "\" x2=\"" + num(kLeft) + "\" y1=\"" +
         num(kTop) + "\" y2=\"" + num(kTop + ph) + "\"/>";
  svg += "<text class=\"label\" text-anchor=\"middle\" x=\"" + num(kLeft + pw / 2) + "\" y=\"" +
         num(kHeight - 8) + "\">" + escape(x_label) + "</text>";
  svg += "<text class=\"label\" text-anchor=\"middle\" transform=\"translate(14 " +
         num(kTop + ph / 2) + ") rotate(-90)\">" + escape(y_label) + "</text>";
  // Lines, then the legend.
  for (const auto& s : series) {
    std::string points;
    for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i)
      points += num(px(s.x[i])) + "," + num(py(s.y[i])) + " ";
    svg += "<polyline class=\"series\" data-series=\"" + escape(s.name) + "\" data-points=\"" +
           std::to_string(std::min(s.x.size(), s.y.size())) + "\" fill=\"none\" stroke=\"" +
           s.color + "\" stroke-width=\"2\"" + (s.dashed ? " stroke-dasharray=\"6 4\"" : "") +
           " points=\"" + points + "\"/>";
  }
  double lx = kLeft + 8, ly = kTop + 8;
  for (const auto& s : series) {
    svg += "<line x1=\"" + num(lx) + "\" x2=\"" + num(lx + 22) + "\" y1=\"" + num(ly) + "\" y2=\"" +
           num(ly) + "\" stroke=\"" + s.color + "\" stroke-width=\"2\"" +
           (s.dashed ? " stroke-dasharray=\"6 4\"" : "") + "/>";
    svg += "<text class=\"legend\" x=\"" + num(lx + 28) + "\" y=\"" + num(ly + 4) + "\">" +
           escape(s.name) + "</text>";
    ly += 16;
  }
  svg += "</svg></figure>";
  return svg;
}

std::vector<double> numbers(const Json& a) {
  std::vector<double> out;
  out.reserve(a.size());
  for (const auto& v : a) out.push_back(v.is_number() ? v.get<double>() : 0.0);
  return out;
}

std::vector<double> scaled(std::vector<double> v, double by) {
  for (double& x : v) x /= by;
  return v;
}

// A run's label in legends: nothing for one run, "A: " / "B: " for two.
std::string prefix(const std::vector<std::string>& configs, size_t run) {
  if (configs.size() < 2) return "";
  return std::string(1, static_cast<char>('A' + run)) + ": ";
}

std::string utilisation_chart(const std::vector<std::string>& configs,
                              const std::vector<Json>& runs, TimeUnit unit) {
  std::vector<Series> series;
  for (size_t r = 0; r < runs.size(); ++r) {
    const Json& u = runs[r]["metrics"]["utilisation"];
    size_t c = 0;
    for (const auto& [dim, values] : u.items()) {
      if (dim == "t_s") continue;
      series.push_back({prefix(configs, r) + dim, kPalette[c++ % 8], r == 1,
                        scaled(numbers(u["t_s"]), unit.seconds), numbers(values)});
    }
  }
  return line_chart("utilisation", "Cluster utilisation by resource",
                    std::string("time (") + unit.name + ")", "allocated / allocatable", series, 1,
                    true);
}

std::string share_charts(const std::vector<std::string>& configs, const std::vector<Json>& runs,
                         TimeUnit unit) {
  std::map<std::string, bool> queues;
  for (const auto& run : runs)
    for (const auto& [q, e] : run["metrics"]["queues"].items()) queues[q] = true;
  std::string out;
  for (const auto& [q, unused] : queues) {
    std::vector<Series> series;
    double y_max = 0;
    for (size_t r = 0; r < runs.size(); ++r) {
      const Json& qs = runs[r]["metrics"]["queues"];
      if (!qs.contains(q)) continue;
      const Json& share = qs[q]["share"];
      const std::vector<double> t = scaled(numbers(share["t_s"]), unit.seconds);
      size_t c = 0;
      for (const auto& [dim, values] : share["allocated"].items()) {
        const char* color = kPalette[c++ % 8];
        series.push_back(
            {prefix(configs, r) + dim + " allocated", color, r == 1, t, numbers(values)});
        for (double v : numbers(values)) y_max = std::max(y_max, v);
        if (share.contains("deserved") && share["deserved"].contains(dim)) {
          Series d{prefix(configs, r) + dim + " deserved", kPalette[(c + 3) % 8], r == 1, t,
                   numbers(share["deserved"][dim])};
          for (double v : d.y) y_max = std::max(y_max, v);
          series.push_back(std::move(d));
        }
      }
    }
    out += line_chart("share-" + q, "Queue " + q + ": allocated and deserved share of the cluster",
                      std::string("time (") + unit.name + ")", "share of cluster", series,
                      std::min(1.0, std::max(0.05, y_max * 1.1)), true);
  }
  return out;
}

std::string wait_cdf_chart(const std::vector<std::string>& configs, const std::vector<Json>& runs) {
  std::vector<Series> series;
  double max_wait = 0;
  std::map<std::string, size_t> color;
  for (size_t r = 0; r < runs.size(); ++r) {
    std::map<std::string, std::vector<double>> waits;
    for (const auto& [key, j] : runs[r]["metrics"]["jobs"].items())
      if (j["wait_s"].is_number()) waits[j["queue"].get<std::string>()].push_back(j["wait_s"]);
    for (auto& [q, w] : waits) {
      std::sort(w.begin(), w.end());
      Series s{prefix(configs, r) + "queue " + q,
               kPalette[color.try_emplace(q, color.size()).first->second % 8],
               r == 1,
               {},
               {}};
      // A step per job: the fraction of the queue's started jobs that
      // waited at most this long.
      const double n = static_cast<double>(w.size());
      s.x.push_back(0);
      s.y.push_back(0);
      for (size_t i = 0; i < w.size(); ++i) {
        s.x.push_back(w[i]);
        s.y.push_back(static_cast<double>(i) / n);
        s.x.push_back(w[i]);
        s.y.push_back(static_cast<double>(i + 1) / n);
        max_wait = std::max(max_wait, w[i]);
      }
      series.push_back(std::move(s));
    }
  }
  const TimeUnit unit = time_unit(max_wait);
  for (auto& s : series) s.x = scaled(std::move(s.x), unit.seconds);
  return line_chart("wait-cdf", "Wait until started (minAvailable bound), CDF per queue",
                    std::string("wait (") + unit.name + ")", "jobs started within", series, 1,
                    true);
}

// Rows of nodes (or bands of them) against time; the colour says how full
// the node was. Runs of one colour are one rect.
std::string heat_map(const std::string& title, const Json& occupancy, TimeUnit unit) {
  const Json& rows = occupancy["rows"];
  const size_t cols = occupancy["t_s"].size();
  const double left = 150, top = 32, pw = kWidth - left - kRight;
  const double row_h = rows.empty() ? 10 : std::max(3.0, std::min(14.0, 400.0 / rows.size()));
  const double ph = row_h * static_cast<double>(rows.size());
  const double height = top + ph + 56;
  std::string svg = "<figure><svg class=\"chart heat\" data-chart=\"occupancy\" viewBox=\"0 0 " +
                    num(kWidth) + " " + num(height) + "\" role=\"img\" aria-label=\"" +
                    escape(title) + "\">";
  svg += "<text class=\"title\" x=\"" + num(left) + "\" y=\"20\">" + escape(title) + "</text>";
  const double cw = cols ? pw / static_cast<double>(cols) : pw;
  for (size_t r = 0; r < rows.size(); ++r) {
    const Json& values = rows[r]["values"];
    const double y = top + row_h * static_cast<double>(r);
    if (rows.size() <= 40 || r % (rows.size() / 20) == 0)
      svg += "<text class=\"tick\" text-anchor=\"end\" x=\"" + num(left - 6) + "\" y=\"" +
             num(y + row_h * 0.8) + "\">" + escape(rows[r]["nodes"].get<std::string>()) + "</text>";
    for (size_t c = 0; c < values.size();) {
      const int level = static_cast<int>(std::lround(values[c].get<double>() * 10));
      size_t end = c + 1;
      while (end < values.size() && std::lround(values[end].get<double>() * 10) == level) ++end;
      // White (idle) to dark blue (full), in eleven steps.
      const int shade = 255 - level * 22;
      char fill[32];
      std::snprintf(fill, sizeof fill, "#%02x%02x%02x", std::max(0, shade - 40),
                    std::max(0, shade - 10), 255);
      svg += "<rect class=\"cell\" x=\"" + num(left + cw * static_cast<double>(c)) + "\" y=\"" +
             num(y) + "\" width=\"" + num(cw * static_cast<double>(end - c)) + "\" height=\"" +
             num(row_h) + "\" fill=\"" + fill + "\"/>";
      c = end;
    }
  }
  const double span = cols ? occupancy["t_s"].back().get<double>() * static_cast<double>(cols) /
                                 static_cast<double>(std::max<size_t>(1, cols - 1))
                           : 1;
  const double x_max = std::max(1e-9, span / unit.seconds);
  const double xs = tick_step(x_max, 8);
  for (double x = 0; x <= x_max + 1e-9; x += xs) {
    const double at = left + x / x_max * pw;
    svg += "<text class=\"tick\" text-anchor=\"middle\" x=\"" + num(at) + "\" y=\"" +
           num(top + ph + 16) + "\">" + num(x) + "</text>";
  }
  svg += "<text class=\"label\" text-anchor=\"middle\" x=\"" + num(left + pw / 2) + "\" y=\"" +
         num(top + ph + 36) + "\">time (" + unit.name +
         "); colour: node occupancy, white idle to blue full (dominant resource)</text>";
  svg += "</svg></figure>";
  return svg;
}

std::string summary_table(const std::vector<std::string>& configs, const std::vector<Json>& runs) {
  std::string html = "<table class=\"summary\"><thead><tr><th>metric</th>";
  if (runs.size() == 1) {
    html += "<th>value</th></tr></thead><tbody>";
    const Json& s = runs[0]["metrics"]["summary"];
    for (const auto& [k, v] : s.items()) {
      if (v.is_object()) {
        for (const auto& [dim, x] : v.items())
          html +=
              "<tr><td>" + escape(k + " " + dim) + "</td><td>" + escape(x.dump()) + "</td></tr>";
      } else {
        html += "<tr><td>" + escape(k) + "</td><td>" + escape(v.dump()) + "</td></tr>";
      }
    }
    return html + "</tbody></table>";
  }
  const Json compared = compare_runs(configs, runs);
  html += "<th>A</th><th>B</th><th>better</th></tr></thead><tbody>";
  for (const auto& row : compared["comparison"]) {
    const char* better = "same";
    if (!row["winner"].is_null()) better = row["winner"] == configs[0] ? "A" : "B";
    html += "<tr><td>" + escape(row["metric"].get<std::string>()) + " (" +
            escape(row["better"].get<std::string>()) + " is better)</td><td>" +
            escape(row["values"][0].dump()) + "</td><td>" + escape(row["values"][1].dump()) +
            "</td><td class=\"win\">" + std::string(better) + "</td></tr>";
  }
  return html + "</tbody></table>";
}

constexpr const char* kStyle = R"(
body { font: 14px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 24px auto;
       max-width: 780px; color: #222; background: #fff; }
h1 { font-size: 22px; } h2 { font-size: 17px; margin-top: 28px; }
figure { margin: 12px 0; }
svg.chart { width: 100%; height: auto; background: #fff; }
svg .title { font-size: 14px; font-weight: 600; }
svg .tick, svg .legend { font-size: 11px; fill: #333; }
svg .label { font-size: 12px; fill: #222; }
svg .grid { stroke: #e6e6e6; } svg .axis { stroke: #444; }
table.summary { border-collapse: collapse; margin: 8px 0; }
table.summary td, table.summary th { border: 1px solid #ccc; padding: 4px 10px; text-align: left; }
td.win { font-weight: 600; }
.note { color: #555; }
)";

}  // namespace

std::string html_report(const std::vector<std::string>& configs, const std::vector<Json>& runs) {
  std::string html = "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">";
  html += "<title>Scoria simulation report</title><style>";
  html += kStyle;
  html += "</style></head><body><h1>Scoria simulation report</h1>";
  html += "<p class=\"note\">";
  for (size_t i = 0; i < configs.size(); ++i)
    html += (configs.size() > 1 ? prefix(configs, i) : std::string("Config: ")) +
            escape(configs[i]) +
            (runs[i].contains("time")
                 ? " — from " + escape(runs[i]["time"]["start"].get<std::string>()) + ", " +
                       std::to_string(runs[i]["time"]["sessions"].get<int>()) + " sessions"
                 : "") +
            "<br>";
  if (configs.size() > 1) html += "A is drawn solid, B dashed.";
  html += "</p>";
  const bool timed =
      std::all_of(runs.begin(), runs.end(), [](const Json& r) { return r.contains("metrics"); });
  if (!timed) {
    html +=
        "<p>These runs have no time annotations (scoria.io/arrival, scoria.io/duration), so "
        "there is nothing over time to chart.</p>";
    if (runs.size() > 1) {
      const Json compared = compare_runs(configs, runs);
      html += "<table class=\"summary\"><tbody>";
      for (const auto& row : compared["comparison"])
        html += "<tr><td>" + escape(row["metric"].get<std::string>()) + "</td><td>" +
                escape(row["values"][0].dump()) + "</td><td>" + escape(row["values"][1].dump()) +
                "</td></tr>";
      html += "</tbody></table>";
    }
    return html + "</body></html>\n";
  }
  double end_s = 0;
  for (const auto& r : runs) end_s = std::max(end_s, r["metrics"]["duration_s"].get<double>());
  const TimeUnit unit = time_unit(end_s);
  html += "<h2>Summary</h2>" + summary_table(configs, runs);
  html += "<h2>Utilisation</h2>" + utilisation_chart(configs, runs, unit);
  html += "<h2>Queues: allocated and deserved share</h2>" + share_charts(configs, runs, unit);
  html += "<h2>Waiting times</h2>" + wait_cdf_chart(configs, runs);
  html += "<h2>Node occupancy</h2>";
  for (size_t r = 0; r < runs.size(); ++r)
    html += heat_map(
        (configs.size() > 1 ? prefix(configs, r) : std::string()) + "Node occupancy over time",
        runs[r]["metrics"]["occupancy"], unit);
  return html + "</body></html>\n";
}

void write_report(const std::string& path, const std::vector<std::string>& configs,
                  const std::vector<Json>& runs) {
  const std::string html = html_report(configs, runs);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (out) out.write(html.data(), static_cast<std::streamsize>(html.size()));
  if (!out)
    throw InputError("simulate: --report " + path + ": cannot write the file (" +
                     std::strerror(errno) + "); name a file in a directory you can write");
}

}  // namespace scoria::simulation
