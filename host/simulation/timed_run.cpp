#include "simulation/timed_run.h"

#include <algorithm>
#include <queue>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "cache/cluster_cache.h"
#include "cache/object_change.h"
#include "simulation/run_metrics.h"

namespace scoria::simulation {

namespace {

using Json = nlohmann::ordered_json;

// Where each pod of the run is.
struct PodState {
  model::Pod* spec = nullptr;  // as the files gave it; emptied once its job is collected
  std::string job;             // its metrics key
  uint32_t incarnation = 0;    // bumped when it is lost: older completions are void
  std::string node;            // where it runs; empty if it does not
  bool succeeded = false;
};

struct Completion {
  int64_t at_ms;
  uint64_t seq;
  std::string pod;
  uint32_t incarnation;
  bool operator>(const Completion& o) const {
    return std::tie(at_ms, seq) > std::tie(o.at_ms, o.seq);
  }
};

std::string job_key(const model::Pod& pod) {
  return pod.namespace_ + "/" + (pod.group_name.empty() ? pod.name : pod.group_name);
}

class TimedRun {
 public:
  TimedRun(scheduler::Scheduler& scheduler, Timeline timeline, const TimedRunLimits& limits,
           bool timings)
      : scheduler_(scheduler), t_(std::move(timeline)), limits_(limits), timings_(timings) {}

  TimedRunResult run();

 private:
  void index_objects();
  void due(int64_t now, std::vector<cache::ObjectChange>& changes);
  void lose(const std::string& pod, bool node_removed);
  void forget_pod(const std::string& pod);
  bool record(int64_t now, const cycle::Outcome& outcome);
  std::optional<int64_t> next_event() const;

  scheduler::Scheduler& scheduler_;
  Timeline t_;
  TimedRunLimits limits_;
  bool timings_;
  cache::ClusterCache cache_;
  std::optional<RunMetrics> metrics_;
  TimedRunResult result_;

  // Specs of every pod, PodGroup and node, copied before the cache takes
  // the objects: completions, recreations and cordons upsert from them.
  // Every pod as the files gave it: those present from zero copied (the
  // cache takes the originals), those arriving later in the timeline.
  std::vector<model::Pod> initial_pods_;
  std::vector<model::Pod*> pod_specs_;
  std::unordered_map<std::string, PodState> pods_;
  std::unordered_map<std::string, model::Node> nodes_;
  std::unordered_map<std::string, std::vector<std::string>> job_pods_;
  std::unordered_map<std::string, std::string> job_group_;  // job → PodGroup key, if any
  size_t next_later_ = 0;
  size_t next_node_event_ = 0;
  std::priority_queue<Completion, std::vector<Completion>, std::greater<>> completions_;
  uint64_t seq_ = 0;
  std::vector<std::string> recreate_;   // pods to bring back pending
  std::vector<std::string> finishing_;  // jobs done, not yet seen by a session
  std::vector<std::string> collect_;    // jobs to take out of the cluster
  std::set<std::string> last_pipelined_;
  // The group last reported in each cache slot: result_.groups' entry, and
  // what it says (a copy, read where the entry would miss the cache).
  struct GroupSeen {
    cycle::Outcome::PodGroupStatus* entry = nullptr;
    uint64_t source_seq = 0;
    model::PodGroupPhase phase = model::PodGroupPhase::Pending;
    bool schedulable = false;  // no unschedulable message
  };
  std::vector<GroupSeen> group_at_;
  // Kept from session to session for its storage.
  cycle::Outcome spare_;
};

void TimedRun::index_objects() {
  initial_pods_ = t_.initial.pods;
  pod_specs_.reserve(initial_pods_.size() + t_.later_pods.size());
  for (auto& p : initial_pods_) pod_specs_.push_back(&p);
  // In arrival order, as before the timeline kept them in input order.
  for (const auto& l : t_.later)
    if (l.is_pod) pod_specs_.push_back(&t_.later_pods[l.index]);
  std::unordered_map<std::string, const model::PodGroup*> groups;
  for (const auto& g : t_.initial.pod_groups) groups.emplace(g.key(), &g);
  for (const auto& l : t_.later)
    if (!l.is_pod) groups.emplace(t_.later_groups[l.index].key(), &t_.later_groups[l.index]);

  // Jobs: a pod already on a node at the start ran before the run; a job
  // made only of such pods is not measured.
  struct JobSeen {
    int32_t pods = 0;
    bool measured = false;
    int64_t arrival = INT64_MAX;
  };
  std::map<std::string, JobSeen> jobs;
  for (model::Pod* spec : pod_specs_) {
    const model::Pod& p = *spec;
    PodState& s = pods_[p.key()];
    s.spec = spec;
    s.job = job_key(p);
    s.node = p.node_name;
    job_pods_[s.job].push_back(p.key());
    if (!p.group_name.empty()) job_group_[s.job] = p.namespace_ + "/" + p.group_name;
    JobSeen& j = jobs[s.job];
    ++j.pods;
    if (p.node_name.empty()) {
      j.measured = true;
      j.arrival = std::min(j.arrival, t_.arrival_ms.at(p.key()));
    }
    // A pod running at the start finishes its duration from the start.
    if (!p.node_name.empty())
      if (const auto d = t_.duration_ms.find(p.key()); d != t_.duration_ms.end())
        completions_.push({d->second, seq_++, p.key(), 0});
  }
  metrics_.emplace(std::vector<std::string>{});
  for (const auto& [key, j] : jobs) {
    if (!j.measured) continue;
    const auto g = job_group_.find(key);
    const model::PodGroup* group = g == job_group_.end()
                                       ? nullptr
                                       : (groups.count(g->second) ? groups.at(g->second) : nullptr);
    metrics_->add_job(key, group ? group->queue : "default", group ? group->min_member : 1, j.pods,
                      j.arrival);
  }
  for (const auto& n : t_.initial.nodes) nodes_.emplace(n.name, n);
}

// `pod` stopped running before it finished (evicted, or its node went
// away): it comes back pending, as its controller would recreate it, and
// any completion planned for it is void.
void TimedRun::lose(const std::string& pod, bool node_removed) {
  const auto it = pods_.find(pod);
  if (it == pods_.end()) return;
  PodState& s = it->second;
  if (s.node.empty() || s.succeeded) return;
  s.node.clear();
  ++s.incarnation;
  metrics_->lost(s.job, node_removed);
  recreate_.push_back(pod);
}

// `pod`'s job is done and out of the cluster: nothing reads its spec or
// state again, and a week's worth of them would otherwise stay to the end.
void TimedRun::forget_pod(const std::string& pod) {
  const auto it = pods_.find(pod);
  if (it == pods_.end()) return;
  *it->second.spec = model::Pod{};
  pods_.erase(it);
  t_.duration_ms.erase(pod);
  t_.arrival_ms.erase(pod);
}

// Everything due at or before `now`, as changes for the cache.
void TimedRun::due(int64_t now, std::vector<cache::ObjectChange>& changes) {
  for (const auto& job : collect_) {
    const auto members = job_pods_.find(job);
    if (members == job_pods_.end()) continue;
    for (const auto& pod : members->second) {
      changes.push_back(cache::ObjectChange::remove(cache::Kind::Pod, pod));
      forget_pod(pod);
    }
    job_pods_.erase(members);
    if (const auto g = job_group_.find(job); g != job_group_.end()) {
      changes.push_back(cache::ObjectChange::remove(cache::Kind::PodGroup, g->second));
      job_group_.erase(g);
    }
  }
  collect_.clear();
  for (; next_later_ < t_.later.size() && t_.later[next_later_].at_ms <= now; ++next_later_) {
    const auto& l = t_.later[next_later_];
    if (l.is_pod)
      changes.push_back(cache::ObjectChange::upsert(t_.later_pods[l.index]));
    else
      changes.push_back(cache::ObjectChange::upsert(t_.later_groups[l.index]));
  }
  for (; next_node_event_ < t_.node_events.size() && t_.node_events[next_node_event_].at_ms <= now;
       ++next_node_event_) {
    const auto& e = t_.node_events[next_node_event_];
    if (e.type == NodeEventType::Arrive) {
      nodes_.insert_or_assign(e.node, *e.spec);
      changes.push_back(cache::ObjectChange::upsert(*e.spec));
      continue;
    }
    const auto it = nodes_.find(e.node);
    if (it == nodes_.end()) continue;  // removed already, or never came
    if (e.type == NodeEventType::Remove) {
      changes.push_back(cache::ObjectChange::remove(cache::Kind::Node, e.node));
      nodes_.erase(it);
      std::vector<std::string> on_node;
      for (const auto& [key, s] : pods_)
        if (s.node == e.node && !s.succeeded) on_node.push_back(key);
      std::sort(on_node.begin(), on_node.end());
      for (const auto& pod : on_node) lose(pod, true);
      continue;
    }
    it->second.unschedulable = e.type == NodeEventType::Cordon;
    changes.push_back(cache::ObjectChange::upsert(it->second));
  }
  for (const auto& pod : recreate_) {
    model::Pod again = *pods_.at(pod).spec;
    again.node_name.clear();
    again.phase = model::PodPhase::Pending;
    again.scheduled_ms = 0;
    changes.push_back(cache::ObjectChange::upsert(std::move(again)));
  }
  recreate_.clear();
  while (!completions_.empty() && completions_.top().at_ms <= now) {
    const Completion c = completions_.top();
    completions_.pop();
    PodState& s = pods_.at(c.pod);
    if (s.incarnation != c.incarnation || s.node.empty() || s.succeeded) continue;
    s.succeeded = true;
    model::Pod done = *s.spec;
    done.node_name = s.node;
    done.phase = model::PodPhase::Succeeded;
    changes.push_back(cache::ObjectChange::upsert(std::move(done)));
    metrics_->succeeded(s.job, c.at_ms);
    if (metrics_->done(s.job)) finishing_.push_back(s.job);
  }
}

// Takes in what a session decided; returns whether it changed anything.
bool TimedRun::record(int64_t now, const cycle::Outcome& outcome) {
  bool changed = !outcome.binds.empty() || !outcome.evictions.empty() || !outcome.ungated.empty();
  result_.ungated.insert(outcome.ungated.begin(), outcome.ungated.end());
  for (const auto& b : outcome.binds) {
    result_.binds[b.pod] = b.node;
    if (!b.annotations.empty()) {
      Json annotations = Json::object();
      for (const auto& [key, value] : b.annotations) annotations[key] = value;
      result_.bind_annotations[b.pod] = std::move(annotations);
    }
    result_.claims.add(b);
    const auto it = pods_.find(b.pod);
    if (it == pods_.end()) continue;
    PodState& s = it->second;
    s.node = b.node;
    metrics_->bound(s.job, now);
    if (const auto d = t_.duration_ms.find(b.pod); d != t_.duration_ms.end())
      completions_.push({now + d->second, seq_++, b.pod, s.incarnation});
  }
  for (const auto& e : outcome.evictions) {
    result_.evictions.insert(e);
    lose(e, false);
  }
  std::set<std::string> pipelined;
  for (const auto& p : outcome.pipelined) pipelined.insert(p.pod);
  changed = changed || pipelined != last_pipelined_;
  last_pipelined_ = std::move(pipelined);
  for (const auto& g : outcome.pod_groups) {
    // Most sessions report the same groups in the same cache slots, most
    // of them as before: the slot's note says so without reaching the
    // run's entry (a map node each, out of cache: a week reports 1,700
    // groups a session, 170,000 sessions).
    GroupSeen* note = g.source < group_at_.size() ? &group_at_[g.source] : nullptr;
    if (note != nullptr && note->entry != nullptr && g.source_seq != 0 &&
        note->source_seq == g.source_seq && note->phase == g.phase && note->schedulable &&
        g.unschedulable.empty())
      continue;
    // Else the slot finds the run's entry again, known to be the same group
    // by the slot's identity (else by one key comparison), where the map
    // would hash every key.
    cycle::Outcome::PodGroupStatus* entry = note != nullptr ? note->entry : nullptr;
    bool added = false;
    const bool same =
        entry != nullptr &&
        ((g.source_seq != 0 && entry->source_seq == g.source_seq) || entry->key == g.key);
    if (!same) {
      const auto [it, fresh] = result_.groups.try_emplace(g.key);
      entry = &it->second;  // map nodes stay put: the pointer holds
      added = fresh;
      if (added) entry->key = g.key;
      if (g.source != UINT32_MAX) {
        if (group_at_.size() <= g.source) group_at_.resize(g.source + 1);
        note = &group_at_[g.source];
      } else {
        note = nullptr;
      }
    }
    entry->source_seq = g.source_seq;
    cycle::Outcome::PodGroupStatus& seen = *entry;
    changed = changed || added || seen.phase != g.phase;
    seen.phase = g.phase;
    if (seen.unschedulable != g.unschedulable) seen.unschedulable = g.unschedulable;
    if (note != nullptr) *note = {entry, g.source_seq, g.phase, g.unschedulable.empty()};
  }
  // Jobs done before this session have now been seen Completed.
  collect_.insert(collect_.end(), finishing_.begin(), finishing_.end());
  finishing_.clear();
  return changed || !recreate_.empty();
}

std::optional<int64_t> TimedRun::next_event() const {
  std::optional<int64_t> at;
  const auto consider = [&](int64_t t) { at = at ? std::min(*at, t) : t; };
  if (next_later_ < t_.later.size()) consider(t_.later[next_later_].at_ms);
  if (next_node_event_ < t_.node_events.size()) consider(t_.node_events[next_node_event_].at_ms);
  if (!completions_.empty()) consider(completions_.top().at_ms);
  return at;
}

TimedRunResult TimedRun::run() {
  index_objects();
  cache_.set_sharding(scheduler_.config().sharding);
  cache_.reset(std::move(t_.initial));
  if (auto made = cache_.claim_controller(); !made.empty()) cache_.apply_changes(made);
  const int64_t period = std::max<int64_t>(1, scheduler_.config().schedule_period_ms);
  int64_t now = 0;
  std::vector<cache::ObjectChange> changes;
  for (;;) {
    changes.clear();
    due(now, changes);
    if (!changes.empty()) {
      cache_.apply_changes(changes);
      // Pods that arrived naming claim templates get their claims.
      if (auto made = cache_.claim_controller(); !made.empty()) cache_.apply_changes(made);
    }
    scheduler::SessionTimings timing;
    const cycle::Snapshot& snapshot =
        cache_.refresh_snapshot(t_.start_ms + now, scheduler_.config().equivalence_cache);
    // Written over the outcome before last: its storage serves again.
    scheduler_.run_once(snapshot, spare_, &timing);
    const cycle::Outcome& outcome = spare_;
    ++result_.sessions;
    const bool changed = record(now, outcome);
    metrics_->evicted(outcome);
    const size_t pending = metrics_->sample(now, snapshot, outcome);
    cache_.apply(outcome);
    // No volume controller runs here: bind the volumes as it would.
    if (auto done = cache_.volume_completions(outcome); !done.empty()) cache_.apply_changes(done);
    // Nor a resource-claim controller: write claims as it would.
    if (auto done = cache_.claim_completions(outcome); !done.empty()) cache_.apply_changes(done);
    // Nor an API server to take the gates' patches.
    if (auto done = cache_.gate_removals(outcome); !done.empty()) cache_.apply_changes(done);
    // Done with the binds: freed here, not by a later session's close.
    spare_.binds.clear();
    if (timings_) {
      Json actions = Json::object();
      for (const auto& [name, ms] : timing.actions_ms) actions[name] = ms;
      result_.timings.push_back({{"t_s", static_cast<double>(now) / 1000.0},
                                 {"open_ms", timing.open_ms},
                                 {"kept_records", timing.kept_records},
                                 {"kept_entries", timing.kept_entries},
                                 {"actions_ms", actions},
                                 {"close_ms", timing.close_ms},
                                 {"total_ms", timing.total_ms}});
    }
    std::swap(result_.last, spare_);
    result_.end_ms = now;

    if (limits_.sessions && result_.sessions >= *limits_.sessions) break;
    int64_t next = now + period;
    // A session that changed something may let the next one do more (place
    // what it admitted, bind what it pipelined, go on after an eviction),
    // but only while something waits.
    if (!changed || (pending == 0 && recreate_.empty())) {
      const std::optional<int64_t> event = next_event();
      if (!event) break;  // quiet: nothing can change any more
      // The first session time (a multiple of the period) at or after it.
      next = std::max(next, (*event + period - 1) / period * period);
    }
    if (limits_.until_ms && next > *limits_.until_ms) {
      // The cluster stays as the last session left it until the bound.
      result_.end_ms = std::max(now, *limits_.until_ms);
      break;
    }
    now = next;
  }
  result_.dims = cache_.dims();
  // The inputs are done with: their memory serves the metrics' JSON.
  t_ = Timeline{};
  initial_pods_ = {};
  pod_specs_ = {};
  pods_ = {};
  job_pods_ = {};
  job_group_ = {};
  spare_ = {};
  result_.metrics = metrics_->to_json(result_.end_ms);
  return std::move(result_);
}

}  // namespace

TimedRunResult run_timed(scheduler::Scheduler& scheduler, Timeline timeline,
                         const TimedRunLimits& limits, bool timings) {
  return TimedRun(scheduler, std::move(timeline), limits, timings).run();
}

}  // namespace scoria::simulation
