// scoria simulate: the DESIGN.md section 5 contract. Runs N sessions over
// the cluster in the object files with the same loader, plugins and session
// code as `serve`, and prints the decisions.
#include <unistd.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <thread>

#include "abi/host_api.h"
#include "api/object_meta.h"
#include "cache/cluster_cache.h"
#include "cli/commands.h"
#include "cli/feature_gates.h"
#include "cli/sharding_flags.h"
#include "config/scheduler_config.h"
#include "decode/field_reader.h"
#include "log/log.h"
#include "model/error.h"
#include "model/quantity.h"
#include "plugin/crash_report.h"
#include "plugin/plugin_dirs.h"
#include "scheduler/explanation_report.h"
#include "scheduler/hang_watch.h"
#include "scheduler/scheduler.h"
#include "schema/unknown_fields.h"
#include "simulation/bind_claims.h"
#include "simulation/html_report.h"
#include "simulation/run_comparison.h"
#include "simulation/timed_run.h"
#include "simulation/timeline.h"
#include "source/object_loader.h"

namespace scoria::cli {

namespace {

using Clock = std::chrono::steady_clock;
using Json = nlohmann::ordered_json;

struct SimulateOptions {
  std::vector<std::string> configs;  // one, or two for an A/B comparison
  std::optional<int> cycles;         // --cycles; 1 when the run is not timed
  std::optional<int64_t> until_ms;   // --until, ms from the start
  std::string report;                // --report FILE.html
  std::string output = "json";
  bool timings = false;
  std::optional<std::string> explain;  // "ns/name"
  bool strict_fields = false;
  bool no_cache = false;          // --no-cache: equivalence_cache = false
  std::optional<int64_t> now_ms;  // --now; the wall clock when not given
  std::vector<std::filesystem::path> plugin_dirs;
  std::vector<std::string> files;
  int64_t watchdog_ms = 60'000;        // --watchdog; 0: none
  model::Sharding sharding;            // --shard-name, --scheduler-sharding-*
  bool queue_admission_gates = false;  // --feature-gates SchedulingGatesQueueAdmission=true
};

constexpr const char* kSimulateUsage =
    "usage: scoria simulate --config CONF [--config CONF2] [--cycles N | --until SECONDS]\n"
    "                       [--output json|table] [--timings] [--report FILE.html]\n"
    "                       [--explain NAMESPACE/POD] [--strict-fields] [--now TIME]\n"
    "                       [--no-cache] [--watchdog SECONDS]\n"
    "                       [--shard-name NAME | --scheduler-sharding-mode none|hard|soft\n"
    "                        --scheduler-sharding-name NAME]\n"
    "                       [--feature-gates SchedulingGatesQueueAdmission=true]\n"
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
    "  judge time (sla waiting times, cdp cooldowns) see that clock.\n"
    "\n"
    "  Over time: when objects carry scoria.io/arrival (seconds from the start; else\n"
    "  pods and PodGroups arrive at their creationTimestamp) or scoria.io/duration\n"
    "  (seconds a bound pod runs, then succeeds), or nodes carry scoria.io/arrival,\n"
    "  scoria.io/removal, scoria.io/cordon or scoria.io/uncordon, the run follows a\n"
    "  simulated clock from --now (else the earliest creationTimestamp, else the Unix\n"
    "  epoch, so that the output depends on the input alone) until\n"
    "  nothing more can happen, --until SECONDS or --cycles sessions. Evicted pods, and\n"
    "  pods whose node leaves, come back pending as their controller would recreate\n"
    "  them. The output gains \"time\" and \"metrics\": waits, completions, shares,\n"
    "  utilisation, fragmentation, evictions, fairness (a summary in the table).\n"
    "  A second --config runs the same input under both and compares them.\n"
    "  --report FILE.html writes the charts to one self-contained HTML page.\n"
    "  --no-cache asks every predicate and score for every task and writes each\n"
    "  session's snapshot whole (the config's equivalence_cache = false): the\n"
    "  same decisions, the plain path, to compare.\n"
    "  --shard-name NAME schedules only on the nodes of NodeShard NAME (less those\n"
    "  another NodeShard has in use), as one of several instances would;\n"
    "  --scheduler-sharding-mode soft prefers them instead.\n"
    "  --feature-gates SchedulingGatesQueueAdmission=true: pods annotated\n"
    "  scheduling.volcano.sh/queue-allocation-gate: \"true\" wait behind that\n"
    "  scheduling gate until their queue has room, as Volcano's; the gates lifted\n"
    "  are listed under \"ungated\".\n"
    "  --watchdog SECONDS (60; 0: none): a plugin callback that runs longer ends\n"
    "  simulate with status 70, naming the plugin and hook, as serve's watchdog does.\n";

// Parses the command line; throws InputError with the usage problem.
SimulateOptions parse_simulate_args(std::span<const std::string_view> args) {
  SimulateOptions o;
  auto value = [&](size_t& i) {
    if (i + 1 >= args.size())
      throw InputError("simulate: " + std::string(args[i]) + " needs a value");
    return std::string(args[++i]);
  };
  ShardingFlags sharding;
  FeatureGates gates;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string_view a = args[i];
    if (sharding.take(a, [&] { return value(i); })) continue;
    if (gates.take(a, [&] { return value(i); })) continue;
    if (a == "--config" || a == "-c") {
      o.configs.push_back(value(i));
      if (o.configs.size() > 2)
        throw InputError("simulate: --config is given once, or twice to compare two configs");
    } else if (a == "--cycles") {
      std::string v = value(i);
      int n = 0;
      try {
        n = std::stoi(v);
      } catch (const std::exception&) {
        n = 0;
      }
      if (n < 1) throw InputError("simulate: --cycles takes a whole number >= 1, not " + v);
      o.cycles = n;
    } else if (a == "--until") {
      const std::string v = value(i);
      const std::optional<int64_t> ms = simulation::parse_seconds(v);
      if (!ms || *ms < 0)
        throw InputError(
            "simulate: --until takes seconds from the start of the run (0 or more), not " + v);
      o.until_ms = ms;
    } else if (a == "--no-cache") {
      o.no_cache = true;
    } else if (a == "--watchdog") {
      const std::string v = value(i);
      const std::optional<int64_t> ms = simulation::parse_seconds(v);
      if (!ms || *ms < 0)
        throw InputError("simulate: --watchdog takes seconds (0 for none), not " + v);
      o.watchdog_ms = *ms;
    } else if (a == "--report") {
      o.report = value(i);
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
  if (o.configs.empty()) throw InputError("simulate: --config CONF is required");
  o.sharding = sharding.sharding();
  o.queue_admission_gates = gates.queue_admission_gates();
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

// The decisions every run reports (DESIGN.md section 5), from its last
// session and what the run accumulated.
void add_decisions(Json& out, int cycles, const std::map<std::string, std::string>& binds,
                   const std::map<std::string, Json>& bind_annotations,
                   const simulation::BindClaims& claims, const std::set<std::string>& evictions,
                   const std::set<std::string>& ungated, const cycle::Outcome& last,
                   const std::vector<cycle::Outcome::PodGroupStatus>& groups,
                   const std::vector<std::string>& dims) {
  out["cycles"] = cycles;
  out["binds"] = sorted_object(binds);
  // Only when a plugin wrote one, so that runs without such plugins print
  // what they always printed.
  if (!bind_annotations.empty()) out["bind_annotations"] = sorted_object(bind_annotations);
  if (!claims.volumes.empty()) out["volumes"] = sorted_object(claims.volumes);
  if (!claims.claims.empty()) out["claims"] = sorted_object(claims.claims);
  std::map<std::string, std::string> pipelined;
  for (const auto& p : last.pipelined) pipelined[p.pod] = p.node;
  out["pipelined"] = sorted_object(pipelined);
  out["evictions"] = Json::array();
  for (const auto& e : evictions) out["evictions"].push_back(e);
  // Only with SchedulingGatesQueueAdmission, as volumes and claims.
  if (!ungated.empty())
    out["ungated"] = Json(std::vector<std::string>(ungated.begin(), ungated.end()));
  std::map<std::string, Json> by_key;
  for (const auto& g : groups) {
    Json st = {{"phase", model::phase_name(g.phase)}};
    if (!g.unschedulable.empty()) st["unschedulable"] = g.unschedulable;
    by_key.insert_or_assign(g.key, std::move(st));
  }
  out["podgroups"] = sorted_object(by_key);
  std::map<std::string, Json> queues;
  for (const auto& q : last.queues) {
    Json st = {{"allocated", resources(dims, q.allocated)}};
    for (const auto& [name, amount] : q.devices)
      st["allocated"][name] = model::format_device_amount(name, amount);
    if (!q.deserved.empty()) st["deserved"] = resources(dims, q.deserved);
    queues.emplace(q.name, std::move(st));
  }
  out["queues"] = sorted_object(queues);
}

// Sessions over the cluster as the files froze it: nothing arrives or
// finishes (no time annotation in the files).
Json run_frozen(scheduler::Scheduler& sched, model::ClusterObjects objects,
                const SimulateOptions& opt, double load_ms, int64_t start_ms) {
  cache::ClusterCache cache;
  cache.set_sharding(sched.config().sharding);
  const auto ingest = Clock::now();
  cache.reset(std::move(objects));
  if (auto made = cache.claim_controller(); !made.empty()) cache.apply_changes(made);
  load_ms += std::chrono::duration<double, std::milli>(Clock::now() - ingest).count();

  std::map<std::string, std::string> binds;
  // What plugins wrote on bound pods (task_set_bind_annotation), by pod.
  std::map<std::string, Json> bind_annotations;
  // The claims given a volume, a node or devices with their pods (DESIGN.md,
  // simulate).
  simulation::BindClaims claims;
  std::set<std::string> evictions;
  std::set<std::string> ungated;
  cycle::Outcome last;
  Json sessions = Json::array();
  // The first session that examined the pod explains it; until one does,
  // the latest says why none did.
  std::optional<cycle::Explanation> explanation;
  sched.set_explain(opt.explain);
  const int cycles = opt.cycles.value_or(1);
  for (int c = 0; c < cycles; ++c) {
    scheduler::SessionTimings t;
    const auto snapshot_start = std::chrono::steady_clock::now();
    // Kept by the cache, written again only where the last cycle changed it.
    const cycle::Snapshot& snapshot = cache.refresh_snapshot(
        start_ms + c * sched.config().schedule_period_ms, sched.config().equivalence_cache);
    const double snapshot_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - snapshot_start)
            .count();
    sched.run_once(snapshot, last, &t);  // over the last one: its storage serves again
    if (last.explanation) {
      explanation = std::move(last.explanation);
      if (!explanation->action.empty()) sched.set_explain(std::nullopt);
    }
    for (const auto& b : last.binds) {
      binds[b.pod] = b.node;
      if (b.annotations.empty()) continue;
      Json annotations = Json::object();
      for (const auto& [key, value] : b.annotations) annotations[key] = value;
      bind_annotations[b.pod] = std::move(annotations);
    }
    for (const auto& b : last.binds) claims.add(b);
    for (const auto& e : last.evictions) evictions.insert(e);
    ungated.insert(last.ungated.begin(), last.ungated.end());
    cache.apply(last);
    cache.remove_evicted(last);  // "eviction removes it" (DESIGN.md, simulate)
    // Nor an API server to take the gates' patches.
    if (auto done = cache.gate_removals(last); !done.empty()) cache.apply_changes(done);
    // No volume controller runs here: bind the volumes as it would.
    if (auto done = cache.volume_completions(last); !done.empty()) cache.apply_changes(done);
    // Nor a resource-claim controller: write and make claims as they would.
    if (auto done = cache.claim_completions(last); !done.empty()) cache.apply_changes(done);
    if (auto made = cache.claim_controller(); !made.empty()) cache.apply_changes(made);
    // Done with the binds: freed here, as serve frees an outcome once its
    // writes are made, not by the next session's close.
    last.binds.clear();
    Json actions = Json::object();
    for (const auto& [name, ms] : t.actions_ms) actions[name] = ms;
    sessions.push_back({{"snapshot_ms", snapshot_ms},
                        {"open_ms", t.open_ms},
                        {"kept_records", t.kept_records},
                        {"kept_entries", t.kept_entries},
                        {"actions_ms", actions},
                        {"close_ms", t.close_ms},
                        {"total_ms", t.total_ms}});
  }

  Json out;
  add_decisions(out, cycles, binds, bind_annotations, claims, evictions, ungated, last,
                last.pod_groups, cache.dims());
  if (opt.timings) out["timings"] = {{"load_ms", load_ms}, {"sessions", sessions}};
  if (explanation) out["explanation"] = scheduler::explanation_json(*explanation);
  return out;
}

// A run over simulated time (simulation/timed_run.h), with its metrics.
Json run_over_time(scheduler::Scheduler& sched, model::ClusterObjects objects,
                   const SimulateOptions& opt, double load_ms) {
  simulation::Timeline timeline = simulation::make_timeline(std::move(objects), opt.now_ms);
  const int64_t start_ms = timeline.start_ms;
  simulation::TimedRunLimits limits{opt.cycles, opt.until_ms};
  const auto t0 = Clock::now();
  simulation::TimedRunResult run =
      simulation::run_timed(sched, std::move(timeline), limits, opt.timings);
  const double run_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  std::vector<cycle::Outcome::PodGroupStatus> groups;
  groups.reserve(run.groups.size());
  for (auto& [key, g] : run.groups) groups.push_back(std::move(g));
  Json out;
  add_decisions(out, run.sessions, run.binds, run.bind_annotations, run.claims, run.evictions,
                run.ungated, run.last, groups, run.dims);
  out["time"] = {{"start", api::ObjectMeta::rfc3339(std::chrono::system_clock::time_point(
                               std::chrono::milliseconds(start_ms)))},
                 {"end_s", static_cast<double>(run.end_ms) / 1000.0},
                 {"sessions", run.sessions}};
  out["metrics"] = std::move(run.metrics);
  if (opt.timings)
    out["timings"] = {{"load_ms", load_ms}, {"run_ms", run_ms}, {"sessions", run.timings}};
  return out;
}

}  // namespace

int simulate(std::span<const std::string_view> args) {
  // A plugin that calls exit() must not end simulate with status 0 and no
  // output.
  plugin::install_exit_attribution();
  SimulateOptions opt;
  model::ClusterObjects objects;
  std::vector<std::unique_ptr<plugin::PluginRegistry>> registries;
  std::vector<std::unique_ptr<scheduler::Scheduler>> schedulers;
  double load_ms = 0;
  try {
    opt = parse_simulate_args(args);
    for (const auto& path : opt.configs) {
      config::SchedulerConfig conf = config::load_config(path);
      if (opt.no_cache) conf.equivalence_cache = false;
      conf.sharding = opt.sharding;
      conf.queue_admission_gates = opt.queue_admission_gates;
      std::vector<std::filesystem::path> dirs = opt.plugin_dirs;
      dirs.insert(dirs.end(), conf.plugin_dirs.begin(), conf.plugin_dirs.end());
      registries.push_back(std::make_unique<plugin::PluginRegistry>(abi::host_api()));
      plugin::scan_plugins(*registries.back(), dirs);
      schedulers.push_back(std::make_unique<scheduler::Scheduler>(*registries.back(), conf));
    }
    source::FieldChecks checks;
    checks.validation =
        opt.strict_fields ? schema::FieldValidation::kStrict : schema::FieldValidation::kWarn;
    checks.warn = [](const std::string& w) { std::cerr << "scoria: warning: " << w << "\n"; };
    const auto t = Clock::now();
    objects = source::load_object_files(opt.files, checks);
    load_ms = std::chrono::duration<double, std::milli>(Clock::now() - t).count();
    // As serve logs it: without its NodeShard the instance has no node.
    if (const model::Sharding& s = opt.sharding;
        s.mode != model::ShardingMode::None &&
        std::none_of(objects.node_shards.begin(), objects.node_shards.end(),
                     [&](const model::NodeShard& n) { return n.name == s.name; }))
      checks.warn("no NodeShard " + s.name + " in the files: no node is in this instance's " +
                  std::string(model::sharding_mode_name(s.mode)) +
                  " shard (--scheduler-sharding-name names it)");
  } catch (const InputError& e) {
    std::cerr << "scoria: " << e.what() << "\n";
    return 2;
  }

  const int64_t wall_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                              std::chrono::system_clock::now().time_since_epoch())
                              .count();
  const bool timed = simulation::is_timed(objects) || opt.until_ms.has_value();
  // The session runs on this thread; a watchdog beside it ends the process
  // when a plugin callback never returns (the thread cannot be stopped).
  scheduler::HookTracker tracker;
  for (const auto& s : schedulers) s->set_tracker(&tracker);
  std::jthread watchdog;
  if (opt.watchdog_ms > 0)
    watchdog = std::jthread([&tracker, limit = std::chrono::milliseconds(opt.watchdog_ms)](
                                const std::stop_token& stop) {
      scheduler::HangWatch watch(tracker);
      while (!stop.stop_requested()) {
        for (int i = 0; i < 4 && !stop.stop_requested(); ++i)
          std::this_thread::sleep_for(std::chrono::milliseconds(50));
        const auto current = tracker.current();
        if (!current || Clock::now() - current->since < limit) {
          watch.remember();
          continue;
        }
        const auto ran =
            std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - current->since);
        std::cerr << "scoria: " << watch.where() << " has run for " << ran.count()
                  << "ms, over --watchdog " << limit.count() / 1000.0
                  << "s; simulate stops (status 70)" << std::endl;
        ::_exit(70);
      }
    });
  std::vector<Json> outs;
  try {
    for (size_t i = 0; i < schedulers.size(); ++i) {
      // The last run takes the objects; an earlier one a copy.
      model::ClusterObjects input = i + 1 < schedulers.size() ? objects : std::move(objects);
      outs.push_back(timed ? run_over_time(*schedulers[i], std::move(input), opt, load_ms)
                           : run_frozen(*schedulers[i], std::move(input), opt, load_ms,
                                        opt.now_ms.value_or(wall_ms)));
    }
  } catch (const InputError& e) {
    std::cerr << "scoria: " << e.what() << "\n";
    return 2;
  }

  if (!opt.report.empty()) {
    try {
      simulation::write_report(opt.report, opt.configs, outs);
    } catch (const InputError& e) {
      std::cerr << "scoria: " << e.what() << "\n";
      return 2;
    }
  }
  if (outs.size() == 1) {
    const Json& out = outs.front();
    if (opt.output == "table") {
      print_table(out);
      if (out.contains("metrics"))
        std::printf("\n%s", simulation::metrics_table(out["metrics"]).c_str());
      if (out.contains("explanation"))
        std::printf("\n%s", scheduler::explanation_table(out["explanation"]).c_str());
    } else {
      // Streamed: a week-long run's output is tens of megabytes.
      std::cout << std::setw(2) << out << "\n";
    }
    return 0;
  }
  const Json compared = simulation::compare_runs(opt.configs, outs);
  if (opt.output == "table") {
    std::printf("%s", simulation::comparison_table(compared).c_str());
  } else {
    std::cout << std::setw(2) << compared << "\n";
  }
  return 0;
}

}  // namespace scoria::cli
