// The gang actions (Volcano's gangpreempt and gangreclaim): room for a whole
// starving gang at once, made by evicting bundles of running tasks.
//
// Queues are served in queue order (gangreclaim skips an overused queue), and
// in each, the starving jobs in job order. For a job, all of its Pending
// tasks that ask for resources are placed together or not at all, within
// one topology domain (a HyperNode):
//   0. the domains are the HyperNodes the plugins' gradients offer for the
//      job with the evict purpose (session_hypernode_gradient from the
//      cluster top, SCORIA_SEARCH_EVICT), in order, each once, at most
//      maxDomains (domains.h); with none, the cluster top, unless the job
//      has a hard network topology: then nothing is tried. Each domain is
//      tried in turn and the first that makes room wins;
//   1. in a domain, candidate victims are gathered per victim job from the
//      domain's nodes only (gangpreempt: Bound or Running tasks of
//      lower-priority jobs of the same queue; gangreclaim: Running tasks of
//      other, reclaimable queues, once the job's queue may reclaim for all
//      its Pending tasks together: session_preemptive_tasks), skipping tasks
//      marked volcano.sh/preemptable=false and jobs whose PodGroup says so;
//   2. they are split into safe and whole bundles (bundles.h) and ordered:
//      gangpreempt takes the jobs last in job order first, gangreclaim the
//      queues first in victim-queue order;
//   3. the plugins decide which may go (session_evictable, with the gang
//      kind of eviction and the domain's name; empty for the cluster top),
//      and a whole bundle with any task refused is dropped (and every whole
//      bundle without allowWholeBundle);
//   4. bundles are added one by one until the domain's idle and releasing
//      resources plus the victims' cover what the Pending tasks ask for; then
//      the victims are evicted and every Pending task is pipelined in task
//      order onto the best node of the domain it fits (idle nodes before
//      releasing ones). A job with a hard network topology is placed in the
//      first HyperNode under the domain that holds it, in the order of its
//      gradients under the domain (evict purpose), as Volcano places its
//      sub-job. If a task fits nowhere or the job is not pipelined, that
//      attempt is undone and the next bundle is added.
// A job's evictions are kept only if it ends up pipelined; its tasks bind in
// a later session, once the victims are gone.
//
// Volcano also notes the winning HyperNode on the job's sub-jobs
// (NominatedHyperNode) for a fast path in allocate. The note lives only in
// the session's copy of the job (the cache never receives it, so the next
// session starts without it), and when it is made every task it covers that
// allocate would place is already pipelined, so nothing later in the
// session reads it either (bar tasks held only by Volcano's own scheduling
// gate, which the gang actions skip and allocate does not). Scoria keeps
// nothing of it.
#ifndef SCORIA_PLUGINS_EVICTION_GANG_EVICTION_H
#define SCORIA_PLUGINS_EVICTION_GANG_EVICTION_H

#include <scoria/scoria.h>
#include <scoria/scoria.hpp>

#include <cstdint>

namespace eviction {

// The arguments Volcano's gangpreempt and gangreclaim read, with its
// defaults. (Both also honour allocate's predicateErrorCacheEnable, read from
// allocate's configuration, not their own.)
inline constexpr scoria_arg_spec kGangArgs[] = {
    scoria::declare_arg(SCORIA_ARG_INT, "maxDomains", "8",
                        "topology domains (HyperNodes) tried per starving job, in the order the "
                        "plugins' HyperNode gradients give them for eviction; without any, the "
                        "whole cluster (none for a job with a hard network topology); 0 or less "
                        "falls back to 8 with a warning, as in Volcano"),
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
  int64_t max_domains = 8;         // maxDomains
  bool allow_whole_bundle = true;  // allowWholeBundle
};

// The options from the action's arguments (kGangArgs); warns, as Volcano
// does, about a maxDomains of 0 or less. `args` may be NULL.
GangOptions gang_options(GangKind kind, const scoria_args* args);

// One run of gangpreempt or gangreclaim over `ssn`.
void run_gang_eviction(scoria_session* ssn, const GangOptions& options);

}  // namespace eviction

#endif  // SCORIA_PLUGINS_EVICTION_GANG_EVICTION_H
