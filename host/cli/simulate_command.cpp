// scoria simulate: the DESIGN.md section 5 contract. Runs N sessions over
// the cluster in the object files with the same loader, plugins and session
// code as `serve`, and prints the decisions.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>

#include "cache/cluster_cache.h"
#include "cli/commands.h"
#include "cli/plugin_dirs.h"
#include "config/scheduler_config.h"
#include "decode/field_reader.h"
#include "log/log.h"
#include "model/error.h"
#include "model/quantity.h"
#include "scheduler/explanation_report.h"
#include "scheduler/scheduler.h"
#include "schema/unknown_fields.h"
#include "source/object_loader.h"

namespace scoria::cli {

namespace {

using Clock = std::chrono::steady_clock;
using Json = nlohmann::ordered_json;

struct Options {
  std::string config;
  int cycles = 1;
  std::string output = "json";
  bool timings = false;
  std::optional<std::string> explain;  // "ns/name"
  bool strict_fields = false;
  std::optional<int64_t> now_ms;  // --now; the wall clock when not given
  std::vector<std::filesystem::path> plugin_dirs;
  std::vector<std::string> files;
};

constexpr const char* kSimulateUsage =
    "usage: scoria simulate --config CONF [--cycles N] [--output json|table] [--timings]\n"
    "                       [--explain NAMESPACE/POD] [--strict-fields] [--now TIME]\n"
    "                       [--plugin-dir DIR]... [-v N] FILE...\n"
    "  Schedules the cluster in FILE (YAML or JSON objects; \"-\" for stdin) with the\n"
    "  actions and plugins CONF names, --cycles sessions (1), and prints what they\n"
    "  decided: binds, pipelined pods, evictions, PodGroup phases and queue shares.\n"
    "  --timings adds the load time and each session's time by action and plugin.\n"
    "  --explain NAMESPACE/POD adds why that pod went where it went, from the first\n"
    "  session that examined it: every plugin's predicate answer on every node,\n"
    "  every plugin's score on the nodes scored, the total, the node chosen and why\n"
    "  each other node lost (\"explanation\" in JSON; a section of the table).\n"
    "  A field its kind does not have (a mistyped one) is warned about on standard\n"
    "  error; --strict-fields refuses the files instead (exit 2), as the API server's\n"
    "  fieldValidation=Strict does.\n"
    "  The first session runs at --now (RFC 3339, e.g. 2024-05-01T12:00:00Z; the\n"
    "  wall clock by default) and each next one schedule_period later: plugins that\n"
    "  judge time (sla waiting times, cdp cooldowns) see that clock.\n";

// Parses the command line; throws InputError with the usage problem.
Options parse(std::span<const std::string_view> args) {
  Options o;
  auto value = [&](size_t& i) {
    if (i + 1 >= args.size())
      throw InputError("simulate: " + std::string(args[i]) + " needs a value");
    return std::string(args[++i]);
  };
  for (size_t i = 0; i < args.size(); ++i) {
    std::string_view a = args[i];
    if (a == "--config" || a == "-c") {
      o.config = value(i);
    } else if (a == "--cycles") {
      std::string v = value(i);
      try {
        o.cycles = std::stoi(v);
      } catch (const std::exception&) {
        o.cycles = 0;
      }
      if (o.cycles < 1) throw InputError("simulate: --cycles takes a whole number >= 1, not " + v);
    } else if (a == "--output" || a == "-o") {
      o.output = value(i);
      if (o.output != "json" && o.output != "table")
        throw InputError("simulate: --output is json or table, not " + o.output);
    } else if (a == "--timings") {
      o.timings = true;
    } else if (a == "--explain") {
      o.explain = value(i);
      if (o.explain->find('/') == std::string::npos)
        throw InputError("simulate: --explain takes NAMESPACE/POD, not " + *o.explain +
                         " (e.g. default/" + *o.explain + ")");
    } else if (a == "--strict-fields") {
      o.strict_fields = true;
    } else if (a == "--now") {
      const std::string v = value(i);
      o.now_ms = decode::FieldReader::parse_rfc3339(v);
      if (!o.now_ms)
        throw InputError(
            "simulate: --now takes an RFC 3339 time such as 2024-05-01T12:00:00Z, not " + v);
    } else if (a == "--plugin-dir") {
      o.plugin_dirs.emplace_back(value(i));
    } else if (a == "-v" || a == "--v") {
      log::set_verbosity(std::stoi(value(i)));
    } else if (a == "-h" || a == "--help") {
      std::cout << kSimulateUsage;
      std::exit(0);
    } else if (a.size() > 1 && a[0] == '-' && a != "-") {
      throw InputError("simulate: unknown option " + std::string(a) +
                       "; see `scoria simulate --help`");
    } else {
      o.files.emplace_back(a);
    }
  }
  if (o.config.empty()) throw InputError("simulate: --config CONF is required");
  if (o.files.empty()) throw InputError("simulate: name at least one object FILE (or - for stdin)");
  return o;
}

// Builds a JSON object from entries already sorted and unique. ordered_json
// looks keys up linearly, so inserting 10^5 entries with operator[] would be
// quadratic; appending keeps the order and costs nothing.
template <class Map>
Json sorted_object(const Map& entries) {
  Json obj = Json::object();
  auto& items = *obj.get_ptr<Json::object_t*>();
  items.reserve(entries.size());
  for (const auto& [k, v] : entries) items.emplace_back(k, v);
  return obj;
}

Json resources(const std::vector<std::string>& dims, const std::vector<double>& v) {
  Json out = Json::object();
  for (size_t k = 0; k < dims.size() && k < v.size(); ++k) {
    if (k == SCORIA_DIM_PODS) continue;
    if (k > SCORIA_DIM_PODS && v[k] == 0) continue;
    out[dims[k]] = model::format_quantity(dims[k], v[k]);
  }
  return out;
}

void print_table(const Json& j) {
  std::printf("cycles: %d\n\n%-40s %s\n", j["cycles"].get<int>(), "POD", "NODE");
  for (const auto& [pod, node] : j["binds"].items())
    std::printf("%-40s %s\n", pod.c_str(), node.get<std::string>().c_str());
  if (!j["pipelined"].empty()) {
    std::printf("\n%-40s %s\n", "PIPELINED POD", "NODE");
    for (const auto& [pod, node] : j["pipelined"].items())
      std::printf("%-40s %s\n", pod.c_str(), node.get<std::string>().c_str());
  }
  if (!j["evictions"].empty()) {
    std::printf("\nEVICTED\n");
    for (const auto& pod : j["evictions"]) std::printf("%s\n", pod.get<std::string>().c_str());
  }
  std::printf("\n%-40s %-10s %s\n", "PODGROUP", "PHASE", "UNSCHEDULABLE");
  for (const auto& [pg, st] : j["podgroups"].items())
    std::printf("%-40s %-10s %s\n", pg.c_str(), st["phase"].get<std::string>().c_str(),
                st.contains("unschedulable") ? st["unschedulable"].get<std::string>().c_str() : "");
  std::printf("\n%-20s %-32s %s\n", "QUEUE", "ALLOCATED", "DESERVED");
  const auto list = [](const Json& amounts) {
    std::string out;
    for (const auto& [dim, qty] : amounts.items())
      out += (out.empty() ? "" : ", ") + dim + "=" + qty.get<std::string>();
    return out;
  };
  for (const auto& [q, st] : j["queues"].items()) {
    const std::string deserved = st.contains("deserved") ? list(st["deserved"]) : "-";
    std::printf("%-20s %-32s %s\n", q.c_str(), list(st["allocated"]).c_str(), deserved.c_str());
  }
}

}  // namespace

int simulate(std::span<const std::string_view> args) {
  Options opt;
  config::SchedulerConfig conf;
  model::ClusterObjects objects;
  plugin::PluginRegistry registry;
  std::unique_ptr<scheduler::Scheduler> sched;
  double load_ms = 0;
  try {
    opt = parse(args);
    conf = config::load_config(opt.config);
    std::vector<std::filesystem::path> dirs = opt.plugin_dirs;
    dirs.insert(dirs.end(), conf.plugin_dirs.begin(), conf.plugin_dirs.end());
    scan_plugins(registry, dirs);
    sched = std::make_unique<scheduler::Scheduler>(registry, conf);
    source::FieldChecks checks;
    checks.validation =
        opt.strict_fields ? schema::FieldValidation::kStrict : schema::FieldValidation::kWarn;
    checks.warn = [](const std::string& w) { std::cerr << "scoria: warning: " << w << "\n"; };
    const auto t = Clock::now();
    objects = source::load_object_files(opt.files, checks);
    load_ms = std::chrono::duration<double, std::milli>(Clock::now() - t).count();
  } catch (const InputError& e) {
    std::cerr << "scoria: " << e.what() << "\n";
    return 2;
  }

  cache::ClusterCache cache;
  const auto ingest = Clock::now();
  cache.reset(std::move(objects));
  load_ms += std::chrono::duration<double, std::milli>(Clock::now() - ingest).count();

  std::map<std::string, std::string> binds;
  // What plugins wrote on bound pods (task_set_bind_annotation), by pod.
  std::map<std::string, Json> bind_annotations;
  std::set<std::string> evictions;
  session::Outcome last;
  Json sessions = Json::array();
  // The first session that examined the pod explains it; until one does,
  // the latest says why none did.
  std::optional<session::Explanation> explanation;
  sched->set_explain(opt.explain);
  const int64_t start_ms =
      opt.now_ms.value_or(std::chrono::duration_cast<std::chrono::milliseconds>(
                              std::chrono::system_clock::now().time_since_epoch())
                              .count());
  for (int c = 0; c < opt.cycles; ++c) {
    scheduler::SessionTimings t;
    session::Snapshot snapshot = cache.snapshot();
    snapshot.now_ms = start_ms + c * sched->config().schedule_period_ms;
    last = sched->run_once(snapshot, &t);
    if (last.explanation) {
      explanation = std::move(last.explanation);
      if (!explanation->action.empty()) sched->set_explain(std::nullopt);
    }
    for (const auto& b : last.binds) {
      binds[b.pod] = b.node;
      if (b.annotations.empty()) continue;
      Json annotations = Json::object();
      for (const auto& [key, value] : b.annotations) annotations[key] = value;
      bind_annotations[b.pod] = std::move(annotations);
    }
    for (const auto& e : last.evictions) evictions.insert(e);
    cache.apply(last);
    Json actions = Json::object();
    for (const auto& [name, ms] : t.actions_ms) actions[name] = ms;
    sessions.push_back({{"open_ms", t.open_ms},
                        {"actions_ms", actions},
                        {"close_ms", t.close_ms},
                        {"total_ms", t.total_ms}});
  }

  Json out;
  out["cycles"] = opt.cycles;
  out["binds"] = sorted_object(binds);
  // Only when a plugin wrote one, so that runs without such plugins print
  // what they always printed.
  if (!bind_annotations.empty()) out["bind_annotations"] = sorted_object(bind_annotations);
  std::map<std::string, std::string> pipelined;
  for (const auto& p : last.pipelined) pipelined[p.pod] = p.node;
  out["pipelined"] = sorted_object(pipelined);
  out["evictions"] = Json::array();
  for (const auto& e : evictions) out["evictions"].push_back(e);
  std::map<std::string, Json> groups;
  for (const auto& g : last.pod_groups) {
    Json st = {{"phase", model::phase_name(g.phase)}};
    if (!g.unschedulable.empty()) st["unschedulable"] = g.unschedulable;
    groups.emplace(g.key, std::move(st));
  }
  out["podgroups"] = sorted_object(groups);
  std::map<std::string, Json> queues;
  for (const auto& q : last.queues) {
    Json st = {{"allocated", resources(cache.dims(), q.allocated)}};
    if (!q.deserved.empty()) st["deserved"] = resources(cache.dims(), q.deserved);
    queues.emplace(q.name, std::move(st));
  }
  out["queues"] = sorted_object(queues);
  if (opt.timings) out["timings"] = {{"load_ms", load_ms}, {"sessions", sessions}};

  if (explanation) out["explanation"] = scheduler::explanation_json(*explanation);

  if (opt.output == "table") {
    print_table(out);
    if (explanation) std::printf("\n%s", scheduler::explanation_table(out["explanation"]).c_str());
  } else {
    std::cout << out.dump(2) << "\n";
  }
  return 0;
}

}  // namespace scoria::cli
