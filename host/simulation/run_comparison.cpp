#include "simulation/run_comparison.h"

#include <cmath>
#include <cstdio>
#include <utility>

namespace scoria::simulation {

namespace {

using Json = nlohmann::ordered_json;

enum class Better { Lower, Higher };

struct Metric {
  std::string name;  // as shown
  Better better;
  Json values = Json::array();
};

// The metrics a timed run's summary offers, in the order shown.
std::vector<Metric> timed_metrics(const std::vector<Json>& runs) {
  std::vector<Metric> out;
  const auto add = [&](std::string name, Better better, auto pick) {
    Metric m{std::move(name), better};
    for (const auto& r : runs) m.values.push_back(pick(r["metrics"]["summary"]));
    out.push_back(std::move(m));
  };
  add("jobs started", Better::Higher, [](const Json& s) { return s["started"]; });
  add("jobs completed", Better::Higher, [](const Json& s) { return s["completed"]; });
  add("mean wait (s)", Better::Lower, [](const Json& s) { return s["mean_wait_s"]; });
  add("p95 wait (s)", Better::Lower, [](const Json& s) { return s["p95_wait_s"]; });
  add("mean completion (s)", Better::Lower, [](const Json& s) { return s["mean_completion_s"]; });
  for (const auto& [dim, v] : runs.front()["metrics"]["summary"]["utilisation"].items())
    add(std::string("utilisation ").append(dim), Better::Higher,
        [d = dim](const Json& s) { return s["utilisation"].value(d, Json(nullptr)); });
  for (const auto& [dim, v] : runs.front()["metrics"]["summary"]["fragmentation"].items())
    add(std::string("fragmentation ").append(dim), Better::Lower,
        [d = dim](const Json& s) { return s["fragmentation"].value(d, Json(nullptr)); });
  add("evictions", Better::Lower, [](const Json& s) { return s["evictions"]; });
  add("preemptions", Better::Lower, [](const Json& s) { return s["preemptions"]; });
  add("Jain fairness", Better::Higher, [](const Json& s) { return s["jain_fairness"]; });
  return out;
}

// A frozen run has decisions only.
std::vector<Metric> frozen_metrics(const std::vector<Json>& runs) {
  std::vector<Metric> out;
  const auto add = [&](std::string name, Better better, auto pick) {
    Metric m{std::move(name), better};
    for (const auto& r : runs) m.values.push_back(pick(r));
    out.push_back(std::move(m));
  };
  add("pods bound", Better::Higher, [](const Json& r) { return r["binds"].size(); });
  add("pods pipelined", Better::Higher, [](const Json& r) { return r["pipelined"].size(); });
  add("pods evicted", Better::Lower, [](const Json& r) { return r["evictions"].size(); });
  add("podgroups unschedulable", Better::Lower, [](const Json& r) {
    size_t n = 0;
    for (const auto& [key, g] : r["podgroups"].items()) n += g.contains("unschedulable") ? 1 : 0;
    return n;
  });
  return out;
}

std::string cell(const Json& v) {
  if (v.is_null()) return "-";
  if (v.is_number_float()) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4g", v.get<double>());
    return buf;
  }
  return v.dump();
}

}  // namespace

nlohmann::ordered_json compare_runs(const std::vector<std::string>& configs,
                                    std::vector<nlohmann::ordered_json> runs) {
  const bool timed = !runs.empty() && runs.front().contains("metrics");
  std::vector<Metric> metrics = timed ? timed_metrics(runs) : frozen_metrics(runs);
  Json comparison = Json::array();
  for (const auto& m : metrics) {
    Json row = {{"metric", m.name},
                {"better", m.better == Better::Lower ? "lower" : "higher"},
                {"values", m.values}};
    // A winner only when both have a value and they differ; a metric a run
    // lacks (no job started) loses to one it has.
    Json winner = nullptr;
    const Json &a = m.values[0], &b = m.values[1];
    if (a.is_number() && b.is_number()) {
      const double x = a.get<double>(), y = b.get<double>();
      if (std::abs(x - y) > 1e-9 * std::max(1.0, std::max(std::abs(x), std::abs(y)))) {
        const bool first = m.better == Better::Lower ? x < y : x > y;
        winner = configs[first ? 0 : 1];
      }
    } else if (a.is_number() != b.is_number()) {
      winner = configs[a.is_number() ? 0 : 1];
    }
    row["winner"] = std::move(winner);
    comparison.push_back(std::move(row));
  }
  Json out;
  out["configs"] = configs;
  out["runs"] = std::move(runs);
  out["comparison"] = std::move(comparison);
  return out;
}

std::string comparison_table(const nlohmann::ordered_json& compared) {
  const auto& configs = compared["configs"];
  std::string out;
  char line[512];
  std::snprintf(line, sizeof line, "%-26s %-16s %-16s %s\n", "METRIC", "A", "B", "BETTER");
  out += line;
  for (const auto& row : compared["comparison"]) {
    const char* better = "same";
    if (!row["winner"].is_null()) better = row["winner"] == configs[0] ? "A" : "B";
    std::snprintf(line, sizeof line, "%-26s %-16s %-16s %s (%s is better)\n",
                  row["metric"].get<std::string>().c_str(), cell(row["values"][0]).c_str(),
                  cell(row["values"][1]).c_str(), better, row["better"].get<std::string>().c_str());
    out += line;
  }
  std::snprintf(line, sizeof line, "\nA: %s\nB: %s\n", configs[0].get<std::string>().c_str(),
                configs[1].get<std::string>().c_str());
  out += line;
  return out;
}

std::string metrics_table(const nlohmann::ordered_json& metrics) {
  const Json& s = metrics["summary"];
  std::string out;
  char line[512];
  std::snprintf(
      line, sizeof line, "RUN: %.0f s simulated; %s jobs, %s started, %s completed; %s evictions\n",
      metrics["duration_s"].get<double>(), cell(s["jobs"]).c_str(), cell(s["started"]).c_str(),
      cell(s["completed"]).c_str(), cell(s["evictions"]).c_str());
  out += line;
  std::snprintf(line, sizeof line, "wait: mean %s s, p95 %s s; completion: mean %s s; Jain %s\n",
                cell(s["mean_wait_s"]).c_str(), cell(s["p95_wait_s"]).c_str(),
                cell(s["mean_completion_s"]).c_str(), cell(s["jain_fairness"]).c_str());
  out += line;
  for (const auto& [dim, u] : s["utilisation"].items()) {
    std::snprintf(line, sizeof line, "%-16s utilisation %s, fragmentation %s\n", dim.c_str(),
                  cell(u).c_str(), cell(s["fragmentation"].value(dim, Json(nullptr))).c_str());
    out += line;
  }
  std::snprintf(line, sizeof line, "\n%-20s %6s %8s %10s %10s %10s\n", "QUEUE", "JOBS", "STARTED",
                "WAIT p50", "WAIT p95", "WAIT p99");
  out += line;
  for (const auto& [q, e] : metrics["queues"].items()) {
    const Json& w = e["wait_s"];
    std::snprintf(
        line, sizeof line, "%-20s %6s %8s %10s %10s %10s\n", q.c_str(), cell(e["jobs"]).c_str(),
        cell(e["started"]).c_str(), w.is_null() ? "-" : cell(w["p50"]).c_str(),
        w.is_null() ? "-" : cell(w["p95"]).c_str(), w.is_null() ? "-" : cell(w["p99"]).c_str());
    out += line;
  }
  return out;
}

}  // namespace scoria::simulation
