// The gang actions (Volcano's gangpreempt and gangreclaim): room for a whole
// starving gang at once, made by evicting bundles of running tasks.
//
// Queues are served in queue order (gangreclaim skips an overused queue), and
// in each, the starving jobs in job order. For a job, all of its Pending
// tasks that ask for resources are placed together or not at all:
//   1. candidate victims are gathered per victim job (gangpreempt: Bound or
//      Running tasks of lower-priority jobs of the same queue; gangreclaim:
//      Running tasks of other, reclaimable queues, once the job's queue may
//      reclaim for all its Pending tasks together: session_preemptive_tasks),
//      skipping tasks marked volcano.sh/preemptable=false and jobs whose
//      PodGroup says so;
//   2. they are split into safe and whole bundles (bundles.h) and ordered:
//      gangpreempt takes the jobs last in job order first, gangreclaim the
//      queues first in victim-queue order;
//   3. the plugins decide which may go (session_evictable, with the gang
//      kind of eviction), and a whole bundle with any task refused is
//      dropped (and every whole bundle without allowWholeBundle);
//   4. bundles are added one by one until the cluster's idle and releasing
//      resources plus the victims' cover what the Pending tasks ask for; then
//      the victims are evicted and every Pending task is pipelined in task
//      order onto the best node it fits (idle nodes before releasing ones).
//      If a task fits nowhere or the job is not pipelined, that attempt is
//      undone and the next bundle is added.
// A job's evictions are kept only if it ends up pipelined; its tasks bind in
// a later session, once the victims are gone.
//
// Scoria has no HyperNodes: the whole cluster is the one domain, as Volcano
// does when a job has no topology (its fallback to the cluster's top
// HyperNode), so maxDomains changes nothing.
#ifndef SCORIA_PLUGINS_EVICTION_GANG_EVICTION_H
#define SCORIA_PLUGINS_EVICTION_GANG_EVICTION_H

#include <scoria/scoria.h>
#include <scoria/scoria.hpp>

namespace eviction {

// The arguments Volcano's gangpreempt and gangreclaim read, with its
// defaults. (Both also honour allocate's predicateErrorCacheEnable, read from
// allocate's configuration, not their own.)
inline constexpr scoria_arg_spec kGangArgs[] = {
    scoria::declare_arg(SCORIA_ARG_INT, "maxDomains", "8",
                        "topology domains (HyperNodes) tried per starving job; Scoria has no "
                        "HyperNodes yet, so the whole cluster is the one domain (Volcano's own "
                        "fallback) and any value behaves alike; 0 or less falls back to 8 with a "
                        "warning, as in Volcano"),
    scoria::declare_arg(SCORIA_ARG_BOOL, "allowWholeBundle", "true",
                        "whether victims may include tasks whose eviction breaks their job's gang "
                        "(its whole bundle); false evicts only the tasks a job can spare above "
                        "minAvailable"),
};

enum class GangKind {
  kPreempt,  // gangpreempt
  kReclaim,  // gangreclaim
};

struct GangOptions {
  GangKind kind = GangKind::kPreempt;
  bool allow_whole_bundle = true;  // allowWholeBundle
};

// The options from the action's arguments (kGangArgs); warns, as Volcano
// does, about a maxDomains of 0 or less. `args` may be NULL.
GangOptions gang_options(GangKind kind, const scoria_args* args);

// One run of gangpreempt or gangreclaim over `ssn`.
void run_gang_eviction(scoria_session* ssn, const GangOptions& options);

}  // namespace eviction

#endif  // SCORIA_PLUGINS_EVICTION_GANG_EVICTION_H
