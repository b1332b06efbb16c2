// Session close: PodGroup phases and the unschedulable condition, computed
// as Volcano's gang plugin and framework/session.go jobStatus do, and the
// outcome handed back to the cache.
#include <algorithm>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "plugin/reason_table.h"
#include "session/session.h"
#include "session/task_status.h"

namespace scoria::session {

namespace {

const char* status_name(size_t bit) {
  static constexpr const char* kNames[] = {"Pending", "Allocated", "Pipelined", "Binding",
                                           "Bound",   "Running",   "Releasing", "Succeeded",
                                           "Failed",  "Unknown"};
  return bit < 10 ? kNames[bit] : "Unknown";
}

// kube-scheduler's FitError text: "0/N nodes are available: <count> <reason>, ...".
// Most frequent reason first, then by text, so the headline is the cause.
std::string fit_error_text(const FitErrors& fit) {
  // A PreFilter rejection names no node count, as kube-scheduler says it.
  if (fit.task_wide != 0)
    return "0/" + std::to_string(fit.nodes_tried) +
           " nodes are available: " + std::string(plugin::reason_text(fit.task_wide)) + ".";
  auto reasons = fit.reasons;
  std::sort(reasons.begin(), reasons.end(), [](const auto& a, const auto& b) {
    if (a.second != b.second) return a.second > b.second;
    return plugin::reason_text(a.first) < plugin::reason_text(b.first);
  });
  std::string out = "0/" + std::to_string(fit.nodes_tried) + " nodes are available";
  const char* sep = ": ";
  for (const auto& [id, count] : reasons) {
    std::string_view text = plugin::reason_text(id);
    out += sep;
    out += std::to_string(count) + " " + std::string(text.empty() ? "unknown reason" : text);
    sep = ", ";
  }
  return out + ".";
}

model::PodGroupPhase phase_of(const Job& job, bool unschedulable, int32_t releasing) {
  const int32_t running = job.status_count[5];
  if (running != 0 && unschedulable) return model::PodGroupPhase::Unknown;
  const int32_t scheduled = count_in(job.status_count, kScheduledMask) + releasing;
  const int32_t completed = count_in(job.status_count, kCompletedMask);
  if (scheduled >= job.spec.min_member) {
    if (scheduled == completed) return model::PodGroupPhase::Completed;
    return model::PodGroupPhase::Running;
  }
  auto phase = static_cast<model::PodGroupPhase>(job.phase);
  if (phase != model::PodGroupPhase::Inqueue) return model::PodGroupPhase::Pending;
  return phase;
}

/// Whether a tier of `config` has drf (Volcano exports volcano_job_share
/// from drf alone).
bool has_drf(const config::SchedulerConfig& config) {
  return std::any_of(config.tiers.begin(), config.tiers.end(), [](const auto& tier) {
    return std::any_of(tier.plugins.begin(), tier.plugins.end(),
                       [](const auto& p) { return p.name == "drf"; });
  });
}

/// A job's dominant share as plugins-builtin/drf computes it: what it
/// holds (allocated, and its pipelined tasks' requests) over `total`, the
/// largest over the dimensions but pods and those the nodes have none of.
double dominant_share(const Job& job, std::span<const Task> tasks, std::span<const double> total) {
  const bool pipelined = job.status_count[status_bit(SCORIA_TASK_PIPELINED)] > 0;
  double share = 0;
  for (size_t d = 0; d < total.size(); ++d) {
    if (d == SCORIA_DIM_PODS || total[d] <= 0) continue;
    double held = job.allocated[d];
    if (pipelined)
      for (uint32_t t : job.tasks)
        if (tasks[t].status == SCORIA_TASK_PIPELINED) held += tasks[t].resreq[d];
    share = std::max(share, held / total[d]);
  }
  return share;
}

}  // namespace

std::optional<Outcome::PodGroupStatus::Pending> Session::unplaced(
    const Task& task, const std::string& job_message) const {
  // Volcano's TaskSchedulingReason, from the task's last transaction: a
  // placement its gang discarded, a pipelined one, or why no node fit.
  const model::Pod& pod = *task.pod;
  const auto possibly = [&](int32_t node, const char* until) {
    return "Pod " + pod.namespace_ + "/" + pod.name + " can possibly be assigned to " +
           nodes_[static_cast<size_t>(node)].spec->name + ", once " + until;
  };
  using Pending = Outcome::PodGroupStatus::Pending;
  // The API server gives a gated pod its SchedulingGated condition; Volcano
  // leaves it be.
  if (pod.scheduling_gated) return std::nullopt;
  switch (task.status) {
    case SCORIA_TASK_PENDING:
      if (task.last_discarded == SCORIA_TASK_ALLOCATED && task.last_discarded_node >= 0)
        return Pending{task.views->uid, "Schedulable",
                       possibly(task.last_discarded_node, "minAvailable is satisfied")};
      if (task.last_discarded == SCORIA_TASK_PIPELINED && task.last_discarded_node >= 0)
        return Pending{task.views->uid, "Unschedulable",
                       possibly(task.last_discarded_node,
                                "resource is released and minAvailable is satisfied")};
      if (const FitErrors* fit = fit_of(task); fit != nullptr && fit->recorded)
        return Pending{task.views->uid, "Unschedulable", fit_error_text(*fit)};
      return Pending{task.views->uid, "Unschedulable",
                     job_message.empty() ? "all nodes are unavailable" : job_message};
    case SCORIA_TASK_ALLOCATED:
      if (task.committed || task.node < 0) return std::nullopt;
      return Pending{task.views->uid, "Schedulable",
                     possibly(task.node, "minAvailable is satisfied")};
    case SCORIA_TASK_PIPELINED:
      if (task.node < 0) return std::nullopt;
      return Pending{task.views->uid, "Unschedulable",
                     possibly(task.node, "resource is released and minAvailable is satisfied")};
    default:
      return std::nullopt;
  }
}

int32_t Session::unready_tasks(const Job& job) const {
  // Gang's count: minMember less the ready tasks and the pending ones that
  // fit before the gang's statement was discarded.
  int32_t ready = count_in(job.status_count, kReadyMask);
  for (uint32_t t : job.tasks)
    if (tasks_[t].status == SCORIA_TASK_PENDING &&
        tasks_[t].last_discarded == SCORIA_TASK_ALLOCATED)
      ++ready;
  return std::max(0, job.spec.min_member - ready);
}

std::string Session::unschedulable_message(const Job& job) {
  // Volcano's gang message: "<unready>/<tasks> tasks in gang unschedulable:
  // pod group is not ready, <per-status counts>, <min> minAvailable; Pending:
  // <n> Unschedulable. Origin reason is <task>: <fit error>".
  std::vector<std::string> parts;
  for (size_t b = 0; b < 10; ++b)
    if (job.status_count[b] > 0)
      parts.push_back(std::to_string(job.status_count[b]) + " " + status_name(b));
  parts.push_back(std::to_string(job.spec.min_member) + " minAvailable");
  std::sort(parts.begin(), parts.end());
  std::string text = "pod group is not ready";
  for (const auto& p : parts) text += ", " + p;
  // Pending tasks by what their last try showed: placeable before the
  // gang's statement was discarded ("Schedulable"), or not.
  int32_t schedulable = 0, unschedulable = 0;
  for (uint32_t t : job.tasks)
    if (tasks_[t].status == SCORIA_TASK_PENDING)
      ++(tasks_[t].last_discarded == SCORIA_TASK_ALLOCATED ? schedulable : unschedulable);
  std::vector<std::string> pending;
  if (schedulable) pending.push_back(std::to_string(schedulable) + " Schedulable");
  if (unschedulable) pending.push_back(std::to_string(unschedulable) + " Unschedulable");
  std::sort(pending.begin(), pending.end());
  for (size_t i = 0; i < pending.size(); ++i) text += (i == 0 ? "; Pending: " : ", ") + pending[i];
  if (!job.fit_error.empty()) {
    text += ". Origin reason is: " + std::string(job.fit_error);
  } else {
    for (uint32_t t : job.tasks) {
      const Task& task = tasks_[t];
      const FitErrors* fit = fit_of(task);
      if (task.status == SCORIA_TASK_PENDING && fit != nullptr && fit->recorded) {
        text += ". Origin reason is " + task.pod->name + ": " + fit_error_text(*fit);
        break;
      }
    }
  }
  return std::to_string(unready_tasks(job)) + "/" + std::to_string(job.tasks.size()) +
         " tasks in gang unschedulable: " + text;
}

Outcome Session::close() {
  Outcome out;
  close(out);
  return out;
}

void Session::take_key(std::vector<Outcome::PodGroupStatus>& entries, size_t j, size_t earlier) {
  const Job& job = jobs_[j];
  Outcome::PodGroupStatus& st = entries[j];
  // An entry written for this job's PodGroup under the same key (the same
  // cache slot and identity) holds its key already: moved here by a swap
  // with what was here, it saves reading and writing two strings scattered
  // over the heap per job.
  const auto same = [&job](const Outcome::PodGroupStatus& e) {
    return job.source_seq != 0 && e.source == job.source && e.source_seq == job.source_seq;
  };
  if (!same(st) && !entries_indexed_) {
    // The first job out of place: where the entries not yet rewritten are,
    // by cache slot (while jobs keep their places, as in a quiet cluster,
    // this pass is never made).
    entries_indexed_ = true;
    for (size_t k = j + 1; k < earlier; ++k)
      if (const uint32_t s = entries[k].source; s != UINT32_MAX) {
        if (entry_of_source_.size() <= s) entry_of_source_.resize(s + 1, UINT32_MAX);
        entry_of_source_[s] = static_cast<uint32_t>(k);
      }
  }
  if (!same(st) && job.source < entry_of_source_.size()) {
    const uint32_t k = entry_of_source_[job.source];
    if (k != UINT32_MAX && k > j && k < earlier && same(entries[k])) {
      Outcome::PodGroupStatus& from = entries[k];
      std::swap(st.key, from.key);
      std::swap(st.source, from.source);
      std::swap(st.source_seq, from.source_seq);
      // What was here now waits there, for its own job further on.
      if (from.source != UINT32_MAX && from.source < entry_of_source_.size())
        entry_of_source_[from.source] = k;
    }
  }
  if (!same(st)) st.key = job.uid;
  st.source = job.source;
  st.source_seq = job.source_seq;
}

void Session::queue_devices(Outcome& out) {
  if (!devices_.any_claims()) return;
  // By queue: the claims counted (each once), and their amounts summed.
  struct Held {
    std::unordered_set<const model::ResourceClaim*> claims;
    std::vector<std::pair<const model::DeviceAmount*, double>> sums;
  };
  std::vector<Held> held(queues_.size());
  std::string key;  // reused: no allocation per task
  for (const Task& t : tasks_) {
    if ((t.pod->features & model::kDeviceClaims) == 0 || !is_allocated_status(t.status)) continue;
    const int32_t q = jobs_[t.job].queue;
    if (q < 0) continue;
    Held& h = held[static_cast<size_t>(q)];
    for (const model::DeviceClaimRef& ref : t.pod->device_claims) {
      const model::ResourceClaim* claim = devices_.resolve(*t.pod, ref, key);
      if (claim == nullptr || !h.claims.insert(claim).second) continue;
      for (const model::DeviceAmount& a : claim->spec.counted) {
        const auto same = [&](const auto& s) {
          return s.first->device_class == a.device_class && s.first->dimension == a.dimension;
        };
        if (const auto it = std::find_if(h.sums.begin(), h.sums.end(), same); it != h.sums.end())
          it->second += a.amount;
        else
          h.sums.emplace_back(&a, a.amount);
      }
    }
  }
  for (size_t q = 0; q < queues_.size(); ++q) {
    std::vector<std::pair<std::string, double>>& devices = out.queues[q].devices;
    for (const auto& [a, amount] : held[q].sums) {
      if (amount <= 0) continue;
      std::string name = a->dimension;
      name += a->dimension.empty() ? "deviceclass/" : ".deviceclass/";
      name += a->device_class;
      devices.emplace_back(std::move(name), amount);
    }
    std::sort(devices.begin(), devices.end());
  }
}

bool Session::write_entry(Outcome::PodGroupStatus& st, const Job& job, int32_t releasing,
                          std::span<const double> share_total, size_t& unschedulable_tasks) {
  st.unschedulable.clear();
  st.pending.clear();
  bool unschedulable = false;
  // A gang whose only missing members are terminating on their nodes is
  // not unschedulable: it is shutting down (Volcano's releasing skip).
  const bool shutting_down =
      releasing > 0 && job.status_count[0] == 0 && job.status_count[2] == 0 &&
      count_in(job.status_count, kScheduledMask) + releasing >= job.spec.min_member;
  // Unschedulable when the session's plugins find the job not ready (gang:
  // its JobReadyFn) and, as gang's close asks, it misses minMember itself
  // (ready and pending best-effort tasks, Volcano's JobInfo.IsReady): a
  // job whose only lack is a role's minimum is not marked so in Volcano.
  const bool ready_count_met =
      count_in(job.status_count, kReadyMask) + job.pending_best_effort >= job.spec.min_member;
  if (!job.tasks.empty() && !ready_count_met && !dispatch_.job_ready(job) && !shutting_down) {
    unschedulable = true;
    st.unschedulable = unschedulable_message(job);
    unschedulable_tasks += static_cast<size_t>(job.status_count[0]);
  }
  const bool unplaced_tasks = job.status_count[0] + job.status_count[1] + job.status_count[2] > 0;
  if (unplaced_tasks)
    for (uint32_t t : job.tasks)
      if (auto why = unplaced(tasks_[t], st.unschedulable)) st.pending.push_back(std::move(*why));
  st.phase = phase_of(job, unschedulable, releasing);
  st.running = job.status_count[5];
  st.succeeded = job.status_count[7];
  st.failed = job.status_count[8];
  if (job.queue >= 0)
    st.queue = queues_[static_cast<size_t>(job.queue)].spec->name;
  else
    st.queue.clear();
  st.creation_ms = job.spec.creation_ms;
  st.native = job.group != nullptr && job.group->native;
  st.unready = unschedulable ? unready_tasks(job) : 0;
  st.placed = job.committed + job.status_count[status_bit(SCORIA_TASK_PIPELINED)];
  st.share = share_total.empty() ? -1.0 : dominant_share(job, tasks_, share_total);
  // Fit errors and plugins' votes decide the rest; a job whose tasks are
  // all placed and whose count alone makes it ready depends on its record.
  return unplaced_tasks || !ready_count_met;
}

void Session::close_all(Outcome& out, std::span<const double> share_total, bool note) {
  // Every field of every entry is written: `out` may hold an earlier
  // session's outcome, whose strings are reused instead of allocated again.
  out.unschedulable_tasks = 0;
  // Jobs shift as others come and go: an entry an earlier session wrote for
  // a job, found where it now sits, hands its key over by a swap (see
  // take_key) instead of a copy.
  const size_t earlier = out.pod_groups.size();
  entries_indexed_ = false;
  // Shrunk only after the loop: an entry past the new end may still give
  // its key to a job.
  if (out.pod_groups.size() < jobs_.size()) out.pod_groups.resize(jobs_.size());
  const size_t d = dims();
  ClosedEntries* closed = nullptr;
  if (note && exact_.queue_sums_exact()) {
    closed = &memory_->closed;
    closed->queue_of.resize(jobs_.size());
    closed->added.resize(2 * d * jobs_.size());
    closed->volatile_jobs.clear();
  }
  for (size_t j = 0; j < jobs_.size(); ++j) {
    const Job& job = jobs_[j];
    take_key(out.pod_groups, j, earlier);
    // One pass over the job's tasks: releasing tasks still on a node keep
    // their gang slot while they terminate; what allocated and pending
    // tasks ask for is proportion's request of the queue.
    Outcome::QueueStatus* qs =
        job.queue >= 0 ? &out.queues[static_cast<size_t>(job.queue)] : nullptr;
    int32_t releasing = 0;
    if (closed != nullptr) {
      // Whole numbers: the job's part added at once sums as its tasks
      // added one by one, and is noted for the next close in one walk.
      double* part = closed->added.data() + 2 * d * j;
      releasing = entry_sums(job, part);
      closed->queue_of[j] = job.queue;
      if (qs != nullptr) {
        model::add(qs->request, {part, d});
        model::add(qs->inqueue, {part + d, d});
      }
    } else {
      releasing = job_request(job, qs != nullptr ? qs->request.data() : nullptr, nullptr);
      if (qs != nullptr &&
          static_cast<model::PodGroupPhase>(job.phase) == model::PodGroupPhase::Inqueue)
        for (size_t k = 0; k < d; ++k) qs->inqueue[k] += job.min_resources[k];
    }
    const bool depends =
        write_entry(out.pod_groups[j], job, releasing, share_total, out.unschedulable_tasks);
    if (closed != nullptr && depends) closed->volatile_jobs.push_back(static_cast<uint32_t>(j));
  }
  out.pod_groups.resize(jobs_.size());
}

void Session::close(Outcome& out) {
  out.dims = dim_names_;
  out.now_ms = now_ms_;
  out.binds = std::move(binds_);
  out.evictions = std::move(evictions_);
  std::sort(ungated_.begin(), ungated_.end());
  ungated_.erase(std::unique(ungated_.begin(), ungated_.end()), ungated_.end());
  out.ungated = std::move(ungated_);
  out.pipelined.clear();
  // Only a task placed this session (or handed over placed) can be Binding,
  // Allocated or Pipelined now: the rest are left as they are.
  std::sort(placed_.begin(), placed_.end());
  placed_.erase(std::unique(placed_.begin(), placed_.end()), placed_.end());
  for (uint32_t i : placed_) {
    Task& t = tasks_[i];
    // The cluster source has confirmed the binds of committed statements by
    // now: they count as Bound, as they will in the next snapshot.
    if (t.status == SCORIA_TASK_BINDING && t.committed) set_task_status(t, SCORIA_TASK_BOUND);
    if ((t.status == SCORIA_TASK_PIPELINED ||
         (t.status == SCORIA_TASK_ALLOCATED && !t.committed)) &&
        t.node >= 0)
      out.pipelined.push_back(
          {t.views->uid, nodes_[static_cast<size_t>(t.node)].spec->name, {}, t.index});
  }

  out.queues.resize(queues_.size());
  for (size_t i = 0; i < queues_.size(); ++i) {
    const Queue& q = queues_[i];
    Outcome::QueueStatus& qs = out.queues[i];
    qs.name = q.spec->name;
    qs.allocated.assign(q.allocated, q.allocated + dims());
    qs.deserved = q.status_deserved;
    qs.real_capability = q.real_capability;
    qs.request.assign(dims(), 0.0);
    qs.inqueue.assign(dims(), 0.0);
    qs.capability.assign(q.capability, q.capability + dims());
    qs.weight = q.spec->weight;
    qs.overused = q.overused;
    qs.devices.clear();
  }
  queue_devices(out);

  // What drf divides a job's holdings by: the nodes' allocatable, summed;
  // empty without drf.
  std::vector<double> share_total;
  if (has_drf(config_)) {
    share_total.resize(dims());
    node_totals(share_total.data(), nullptr);
  }
  kept_entries_ = close_kept(out, share_total);
  if (!kept_entries_) close_all(out, share_total, memory_ != nullptr);
  if (memory_ != nullptr) {
    if (kept_entries_ && memory_->verify) verify_entries(out, share_total);
    note_closed(out, share_total);
  } else {
    out.closed_by = 0;
  }
  out.preemption_attempts = preemption_attempts_;
  out.preemption_victims = preemption_victims_;
  out.eviction_transactions = eviction_transactions_;
  out.explanation.reset();
  if (explain_ != nullptr) explain_close(out);
}

void Session::node_totals(double* allocatable, double* used) const {
  const size_t d = dims();
  if (allocatable != nullptr) std::fill_n(allocatable, d, 0.0);
  if (used != nullptr) std::fill_n(used, d, 0.0);
  for (const Node& n : nodes_) {
    if (allocatable != nullptr)
      for (size_t k = 0; k < d; ++k) allocatable[k] += n.allocatable[k];
    if (used != nullptr)
      for (size_t k = 0; k < d; ++k) used[k] += n.used[k];
  }
}

}  // namespace scoria::session
