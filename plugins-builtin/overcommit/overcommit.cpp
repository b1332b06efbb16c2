// The overcommit plugin (Volcano's overcommit): the enqueue action admits a
// job only while what admitted jobs may still claim fits the cluster's
// capacity times `overcommit-factor` (default 1.2). Admitted-but-unplaced
// jobs thus cannot pile up far beyond what the nodes can ever run.
//
// Per session: idle = total allocatable * factor - used on the nodes;
// inqueue = minResources of every Inqueue job, plus the part of minResources
// that a Running job (with at least minMember tasks placed) has not yet been
// allocated. A job with minResources is enqueueable if inqueue + its
// minResources <= idle in every dimension it asks for; a job without
// minResources always is.
#include <scoria/scoria.h>
#include <scoria/scoria.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <iterator>
#include <vector>

namespace {

using scoria::api;
using scoria::log_line;

constexpr double kDefaultFactor = 1.2;

// Volcano's one argument and its default. Volcano warns about a factor below
// 1 and uses the default; the host refuses one when it loads the config.
constexpr scoria_arg_spec kArgs[] = {
    scoria::with_min(scoria::declare_arg(SCORIA_ARG_FLOAT, "overcommit-factor", "1.2",
                                         "enqueue admits jobs while their minResources and what "
                                         "the nodes use fit in allocatable times this factor"),
                     1),
};

struct Overcommit {
  explicit Overcommit(const scoria_args* args) {
    if (args != nullptr) factor = scoria::arg_float(args, "overcommit-factor", kDefaultFactor);
  }

  double factor = kDefaultFactor;
  // Per session.
  size_t dims = 0;
  std::vector<double> idle;
  std::vector<double> inqueue;
};

void open_session(Overcommit& self, scoria_session* ssn) {
  self.dims = scoria::dims(ssn);
  self.inqueue.assign(self.dims, 0.0);
  // As Volcano's: the cluster's total times the factor, less what the
  // nodes use.
  const scoria::NodeTotals totals = scoria::node_totals(ssn);
  self.idle.resize(self.dims);
  for (size_t d = 0; d < self.dims; ++d)
    self.idle[d] = totals.allocatable[d] * self.factor - totals.used[d];
  // What admitted jobs hold back: an Inqueue job's whole minResources, a
  // Running one's still unallocated part of it, summed by the host job by
  // job (jobs without a queue are not in Volcano's session at all).
  for (const scoria_queue_job_sums& s : scoria::queue_job_sums(ssn))
    for (size_t d = 0; d < self.dims; ++d)
      self.inqueue[d] += s.inqueue_minimum[d] + s.running_unallocated[d];
}

scoria_vote enqueueable(void* user_data, const scoria_job* job) {
  const auto& self = *static_cast<const Overcommit*>(user_data);
  const scoria_job_info ji = scoria::info(job);
  if (ji.has_min_resources == 0) return SCORIA_VOTE_PERMIT;
  // Only the dimensions the job asks for are compared.
  for (size_t d = 0; d < self.dims; ++d) {
    const double need = ji.min_resources[d];
    if (need <= 0) continue;
    const double after = self.inqueue[d] + need;
    if (!(after < self.idle[d] || std::fabs(after - self.idle[d]) < SCORIA_RESOURCE_EPSILON)) {
      log_line(SCORIA_LOG_V4, "resource in cluster is overused; job <", scoria::view(ji.uid),
               "> is not enqueueable");
      return SCORIA_VOTE_REJECT;
    }
  }
  return SCORIA_VOTE_PERMIT;
}

void enqueued(void* user_data, const scoria_job* job) {
  auto& self = *static_cast<Overcommit*>(user_data);
  const scoria_job_info ji = scoria::info(job);
  if (ji.has_min_resources == 0) return;
  for (size_t d = 0; d < self.dims; ++d) self.inqueue[d] += ji.min_resources[d];
}

scoria_code on_session_open(void* instance, scoria_session* ssn, scoria_hooks* hooks) {
  return scoria::guarded([&] {
    auto& self = *static_cast<Overcommit*>(instance);
    open_session(self, ssn);
    hooks->user_data = &self;
    hooks->on_job_enqueueable = enqueueable;
    hooks->on_job_enqueued = enqueued;
  });
}

const scoria_descriptor kDescriptor = {
    .struct_size = sizeof(scoria_descriptor),
    .abi_major = SCORIA_ABI_VERSION_MAJOR,
    .abi_minor = SCORIA_ABI_VERSION_MINOR,
    .name = "overcommit",
    .kind = SCORIA_KIND_PLUGIN,
    .flags = SCORIA_FLAG_DECLARES_ARGS,
    .version = "1.0.0",
    .description = "Admits jobs while they fit the cluster times overcommit-factor",
    .on_create = scoria::create_instance<Overcommit>,
    .on_destroy = scoria::destroy_instance<Overcommit>,
    .on_session_open = on_session_open,
    .on_session_close = nullptr,
    .on_execute = nullptr,
    .args = kArgs,
    .arg_count = std::size(kArgs),
};

}  // namespace

SCORIA_DEFINE_PLUGIN(kDescriptor)
