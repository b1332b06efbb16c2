// Where the service's cluster comes from and where its decisions go: the
// local store (serve/local_cluster) or a Kubernetes API server
// (kube/kube_cluster). The service's loop calls refresh() before each
// session and record() after it, never both at once.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cache/cluster_cache.h"
#include "cycle/outcome.h"

namespace scoria::cache {

class ClusterSource {
 public:
  virtual ~ClusterSource() = default;

  /// Brings `cache` up to what the source has seen. A reason when the
  /// cluster cannot be scheduled yet (the first lists are not in): the
  /// session waits and /readyz says why.
  virtual std::optional<std::string> refresh(ClusterCache& cache) = 0;
  /// Applies what a session decided to `cache` at once, and hands it to the
  /// source to write. Returns, for each pod bound, the milliseconds since
  /// the source first saw it pending (Volcano's task scheduling latency).
  virtual std::vector<double> record(const cycle::Outcome& outcome, ClusterCache& cache) = 0;
  /// Readies a session's outcome for record(), on the session thread once
  /// the session has run, so that the loop does less: drops what record()
  /// would do nothing with (statuses that have not changed), and may draft
  /// what record() will write. Nothing changes `cache` meanwhile, and the
  /// loop calls neither refresh() nor record(). The default does nothing.
  virtual void prepare(cycle::Outcome& /*outcome*/, const ClusterCache& /*cache*/) {}
  /// Whether sessions may run now (false while another replica leads).
  virtual bool may_schedule() const { return true; }
  /// The last unschedulable message of a PodGroup ("ns/name"), if any.
  virtual const std::string* unschedulable_reason(std::string_view podgroup) const = 0;
};

}  // namespace scoria::cache
