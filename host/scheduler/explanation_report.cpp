#include "scheduler/explanation_report.h"

#include <algorithm>
#include <charconv>

namespace scoria::scheduler {

namespace {

using Json = nlohmann::ordered_json;

std::string number(double x) {
  char buf[32];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, x);
  return ec == std::errc() ? std::string(buf, end) : std::string("?");
}

const char* code_name(scoria_code c) {
  switch (c) {
    case SCORIA_OK:
      return "pass";
    case SCORIA_UNSCHEDULABLE:
      return "unschedulable";
    case SCORIA_UNSCHEDULABLE_AND_UNRESOLVABLE:
      return "unschedulable-and-unresolvable";
    default:
      return "refused";
  }
}

// The predicate failures of a node, "plugin: reason; ...", or "ok".
std::string failures(const Json& node) {
  std::string out = node.contains("resources")
                        ? "resources: " + node["resources"].get<std::string>()
                        : std::string();
  for (const auto& p : node["predicates"])
    if (p.contains("reason"))
      out += (out.empty() ? "" : "; ") + p["plugin"].get<std::string>() + ": " +
             p["reason"].get<std::string>();
  return out.empty() ? "ok" : out;
}

std::string text(const Json& j, const char* key) {
  return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
}

}  // namespace

Json explanation_json(const cycle::Explanation& x) {
  Json out = {{"pod", x.task}};
  if (!x.job.empty()) out["job"] = x.job;
  if (!x.queue.empty()) out["queue"] = x.queue;
  out["action"] = x.action.empty() ? Json(nullptr) : Json(x.action);
  out["outcome"] = x.outcome;
  out["chosen"] = x.chosen.empty() ? Json(nullptr) : Json(x.chosen);
  if (!x.chosen_by.empty()) out["chosen_by"] = x.chosen_by;
  out["resources_checked"] = x.check_resources;
  out["feasible_nodes_examined"] = x.examined;
  Json weights = Json::object();
  for (const auto& w : x.weights) {
    Json args = Json::object();
    for (const auto& [k, v] : w.arguments) args[k] = v;
    weights[w.plugin] = std::move(args);
  }
  out["weights"] = std::move(weights);
  Json nodes = Json::array();
  for (const auto& row : x.nodes) {
    Json preds = Json::array();
    for (const auto& p : row.predicates) {
      Json a = {{"plugin", p.plugin}, {"answer", code_name(p.code)}};
      if (!p.reason.empty()) a["reason"] = p.reason;
      preds.push_back(std::move(a));
    }
    Json n = {{"node", row.name}, {"fits", row.fits}};
    if (!row.resources.empty()) n["resources"] = row.resources;
    n["predicates"] = std::move(preds);
    if (row.scored) {
      Json scores = Json::object();
      for (const auto& s : row.scores) scores[s.plugin] = s.score;
      n["scores"] = std::move(scores);
      n["total"] = row.total;
    }
    n["result"] = row.result;
    nodes.push_back(std::move(n));
  }
  out["nodes"] = std::move(nodes);
  return out;
}

std::string explanation_table(const Json& x) {
  std::string out = "EXPLAIN " + text(x, "pod");
  if (x.contains("job"))
    out += " (job " + text(x, "job") + ", queue " +
           (x.contains("queue") ? text(x, "queue") : std::string("-")) + ")";
  out += "\n";
  if (text(x, "action").empty()) {
    out += "no action examined it in the session\n";
  } else {
    out += "examined by " + text(x, "action") +
           (x.value("resources_checked", false)
                ? " (its resources against each node's future idle too)"
                : "") +
           "; its search returned " + std::to_string(x.value("feasible_nodes_examined", 0)) +
           " feasible nodes\n";
  }
  std::vector<std::string> scorers;
  if (x.contains("weights") && !x["weights"].empty()) {
    out += "scoring plugins and their weights:";
    std::string all;
    for (const auto& [plugin, args] : x["weights"].items()) {
      scorers.push_back(plugin);
      std::string list;
      for (const auto& [k, v] : args.items())
        list += (list.empty() ? "" : ", ") + k + "=" + v.get<std::string>();
      all += (all.empty() ? " " : ", ") + plugin + (list.empty() ? "" : " (" + list + ")");
    }
    out += all + "\n";
  }
  out += "outcome: " + text(x, "outcome") + "\n";
  if (!x.contains("nodes") || x["nodes"].empty()) return out;

  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> head = {"NODE", "PREDICATES"};
  for (const auto& s : scorers) head.push_back(s);
  for (const char* h : {"TOTAL", "RESULT"}) head.emplace_back(h);
  rows.push_back(head);
  for (const auto& node : x["nodes"]) {
    std::vector<std::string> r = {text(node, "node"), failures(node)};
    for (const auto& s : scorers)
      r.push_back(node.contains("scores") && node["scores"].contains(s)
                      ? number(node["scores"][s].get<double>())
                      : "-");
    r.push_back(node.contains("total") ? number(node["total"].get<double>()) : "-");
    r.push_back(text(node, "result"));
    rows.push_back(std::move(r));
  }
  std::vector<size_t> width(head.size(), 0);
  for (const auto& r : rows)
    for (size_t c = 0; c + 1 < r.size(); ++c) width[c] = std::max(width[c], r[c].size());
  out += "\n";
  for (const auto& r : rows) {
    std::string line;
    for (size_t c = 0; c < r.size(); ++c) {
      line += r[c];
      if (c + 1 < r.size()) line += std::string(width[c] - r[c].size() + 2, ' ');
    }
    out += line + "\n";
  }
  return out;
}

}  // namespace scoria::scheduler
