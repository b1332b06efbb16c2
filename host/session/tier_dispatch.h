// The plugins of a session's tiers, and the decisions on jobs, queues and
// victims that their hooks make together, by the rules of Volcano's
// framework/session_plugins.go: orders take the first decisive answer,
// checks must all pass, votes follow permit, abstain and reject, victims
// intersect within a tier and the first tier that selects decides.
//
// Only the hooks and the records they are asked about take part here. The
// node-level hooks (predicates, scores, the best node) are dispatched by
// the session itself (node_answers.cpp), which adds the host's own checks,
// the equivalence classes and explanations to them.
#pragma once

#include <scoria/scoria.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "session/plugin_hooks.h"
#include "session/records.h"

namespace scoria::session {

class TierDispatch {
 public:
  using Tiers = std::vector<std::vector<PluginHooks>>;

  /// Registers the hooks of one plugin of tier `tier` (called in tier order).
  void add(size_t tier, PluginHooks hooks);
  const Tiers& tiers() const { return tiers_; }
  Tiers& tiers() { return tiers_; }

  // Orders: the first plugin with an answer decides, then Volcano's
  // fallbacks (creation time, name or uid; a task's index in its job).
  bool job_less(const Job& l, const Job& r);
  bool queue_less(const Queue& l, const Queue& r);
  bool task_less(const Task& l, const Task& r);
  bool victim_queue_less(const Queue& l, const Queue& r, const Task* preemptor);
  /// Volcano's SubJobOrderFn: the plugins, then the match index, then the uid.
  bool sub_job_less(const SubJob& l, const SubJob& r);

  // Checks and votes on jobs and queues.
  /// False with the reason in `message` when the job is invalid
  /// (Job::invalid) or a plugin's on_job_valid says so.
  bool job_valid(const Job& job, std::string* message);
  bool job_ready(const Job& job);
  bool job_pipelined(const Job& job);
  bool job_enqueueable(const Job& job);
  void job_enqueued(const Job& job);
  bool job_starving(const Job& job);
  /// A sub-job's readiness and pipelining by its plugins' hooks alone (the
  /// session falls back to its job's when the job has no policy).
  bool sub_job_ready(const SubJob& sub_job);
  bool sub_job_pipelined(const SubJob& sub_job);
  bool overused(const Queue& queue);
  bool allocatable(const Queue& queue, const Task& task);
  bool preemptive(const Queue& queue, const Task& task);
  /// Preemptive for several tasks together (a gang's pending tasks).
  bool preemptive_tasks(const Queue& queue, std::span<const Task* const> tasks);

  // Victims: selected[i] for the candidates the tiers let go.
  void preemptable(const Task& preemptor, std::span<const Task* const> candidates,
                   uint8_t* selected);
  void reclaimable(const Task& reclaimer, std::span<const Task* const> candidates,
                   uint8_t* selected);
  /// Victims for the eviction `ctx` describes (on_evictable; no enable flag).
  void evictable(const scoria_eviction_context& ctx, std::span<const Task* const> candidates,
                 uint8_t* selected);
  void victim_tasks(std::span<const Task* const> tasks, uint8_t* selected);

  // What the node-level dispatch asks of the tiers.
  /// Whether any enabled plugin has on_best_node (it sees the candidates).
  bool best_node_hooked();
  /// Whether a plugin with predicates runs them on one thread only.
  bool serial_predicates() const;

 private:
  Tiers tiers_;
  std::optional<bool> best_node_hooked_;
};

}  // namespace scoria::session
