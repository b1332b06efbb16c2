// The pdb plugin (Volcano's): preemption, reclaim and shuffle take no pod
// whose eviction would take a PodDisruptionBudget below what it allows.
// Candidates are weighed in order; each takes one disruption from every
// budget that selects it (unless the budget lists it as disrupted
// already), and one that would leave a budget below zero is spared. As in
// Volcano the filter answers for all three: preemptable and reclaimable
// (an intersection with the other plugins' answers) and victim tasks
// (shuffle: a union, so that there it names every pod the budgets allow).
//
// Beyond Volcano, whose budget starts afresh at every question, the
// evictions this session has already made count against their budgets, as
// the Eviction API would count them. As in Volcano, a pod with no labels
// is never a victim while the plugin is enabled.
#include <scoria/scoria.h>
#include <scoria/scoria.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <optional>

#include "disruption_budgets.h"

namespace {

using scoria::log_line;

struct Instance {
  std::optional<pdb::SessionBudgets> budgets;  // this session's
};

Instance& self(void* user_data) { return *static_cast<Instance*>(user_data); }

void filter(Instance& s, const scoria_task* const* candidates, size_t count, uint8_t* selected) {
  try {
    if (s.budgets) s.budgets->filter(candidates, count, selected);
  } catch (const std::exception& e) {
    // Fail closed: name no victim rather than half a decision.
    std::fill(selected, selected + count, uint8_t{0});
    scoria::report_error(e.what());
  }
}

scoria_vote filter_victims(void* user_data, const scoria_task* /*evictor*/,
                           const scoria_task* const* candidates, size_t count, uint8_t* selected) {
  filter(self(user_data), candidates, count, selected);
  return SCORIA_VOTE_PERMIT;
}

void victim_tasks(void* user_data, const scoria_task* const* tasks, size_t count,
                  uint8_t* selected) {
  filter(self(user_data), tasks, count, selected);
}

// Evictions are made and undone through statements; the events tell which.
void on_deallocate(void* user_data, const scoria_task* task) {
  Instance& s = self(user_data);
  if (s.budgets && scoria::info(task).status == SCORIA_TASK_RELEASING)
    s.budgets->count_eviction(task, 1);
}

void on_allocate(void* user_data, const scoria_task* task) {
  Instance& s = self(user_data);
  const uint32_t status = scoria::info(task).status;
  // Allocated or pipelined: a placement. Anything else: an eviction undone.
  if (s.budgets && status != SCORIA_TASK_ALLOCATED && status != SCORIA_TASK_PIPELINED)
    s.budgets->count_eviction(task, -1);
}

scoria_code on_session_open(void* instance, scoria_session* ssn, scoria_hooks* hooks) {
  if (hooks == nullptr || hooks->struct_size < sizeof(scoria_hooks)) return SCORIA_INVALID_ARGUMENT;
  Instance& s = self(instance);
  const scoria_code rc = scoria::guarded([&] { s.budgets.emplace(ssn); });
  if (rc != SCORIA_OK) return rc;
  log_line(SCORIA_LOG_V4, "", s.budgets->size(), " PodDisruptionBudgets in the session");
  hooks->user_data = instance;
  hooks->on_preemptable = filter_victims;
  hooks->on_reclaimable = filter_victims;
  hooks->on_victim_tasks = victim_tasks;
  // Only evictions among pods a budget selects count; none to count without
  // budgets, and allocation events are the busiest of a session.
  if (!s.budgets->empty()) {
    hooks->on_allocate = on_allocate;
    hooks->on_deallocate = on_deallocate;
  }
  return SCORIA_OK;
}

void on_session_close(void* instance, scoria_session* /*ssn*/) { self(instance).budgets.reset(); }

const scoria_descriptor kDescriptor = {
    .struct_size = sizeof(scoria_descriptor),
    .abi_major = SCORIA_ABI_VERSION_MAJOR,
    .abi_minor = SCORIA_ABI_VERSION_MINOR,
    .name = "pdb",
    .kind = SCORIA_KIND_PLUGIN,
    .flags = SCORIA_FLAG_DECLARES_ARGS,  // Volcano's pdb takes no arguments
    .version = "1.0.0",
    .description = "No victim takes a PodDisruptionBudget below the disruptions it allows",
    .on_create = scoria::create_instance<Instance>,
    .on_destroy = scoria::destroy_instance<Instance>,
    .on_session_open = on_session_open,
    .on_session_close = on_session_close,
    .on_execute = nullptr,
    .args = nullptr,
    .arg_count = 0,
};

}  // namespace

SCORIA_DEFINE_PLUGIN(kDescriptor)
