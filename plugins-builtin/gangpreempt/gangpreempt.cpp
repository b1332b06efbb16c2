// The gangpreempt action (Volcano's gangpreempt): a starving gang takes the
// room of lower-priority jobs of its own queue, for all its Pending tasks at
// once, evicting bundles of victims that the plugins permit
// (session_evictable with SCORIA_EVICTION_GANG_PREEMPT: priority, conformance,
// ...). See eviction/gang_eviction.h for the steps.
#include <scoria/scoria.h>
#include <scoria/scoria.hpp>

#include <iterator>

#include "gang_eviction.h"

namespace {

struct Config {
  explicit Config(const scoria_args* args)
      : options(eviction::gang_options(eviction::GangKind::kPreempt, args)) {}
  eviction::GangOptions options;
};

scoria_code on_execute(void* instance, scoria_session* ssn) {
  // An exception undoes the open statements on its way out to guarded.
  return scoria::guarded(
      [&] { eviction::run_gang_eviction(ssn, static_cast<const Config*>(instance)->options); });
}

const scoria_descriptor kDescriptor = {
    .struct_size = sizeof(scoria_descriptor),
    .abi_major = SCORIA_ABI_VERSION_MAJOR,
    .abi_minor = SCORIA_ABI_VERSION_MINOR,
    .name = "gangpreempt",
    .kind = SCORIA_KIND_ACTION,
    .flags = SCORIA_FLAG_DECLARES_ARGS,
    .version = "1.0.0",
    .description = "Evicts lower-priority jobs of a queue so that a starving gang can run whole",
    .on_create = scoria::create_instance<Config>,
    .on_destroy = scoria::destroy_instance<Config>,
    .on_session_open = nullptr,
    .on_session_close = nullptr,
    .on_execute = on_execute,
    .args = eviction::kGangArgs,
    .arg_count = std::size(eviction::kGangArgs),
};

}  // namespace

SCORIA_DEFINE_PLUGIN(kDescriptor)
