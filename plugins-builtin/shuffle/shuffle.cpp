// The shuffle action (Volcano's shuffle): evicts the running tasks that the
// victim-task plugins select, such as rescheduling's low-node-utilization
// strategy. The action only gathers candidates and carries out the choice;
// which tasks go is entirely the plugins' decision.
#include <scoria/scoria.h>
#include <scoria/scoria.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace {

using scoria::api;
using scoria::log_line;

// Every Running task of the session, in job then task order (Volcano walks a
// map; a fixed order keeps the outcome reproducible).
std::vector<const scoria_task*> running_tasks(const scoria_session* ssn) {
  std::vector<const scoria_task*> out;
  const size_t job_count = api().job_count(ssn);
  for (size_t j = 0; j < job_count; ++j) {
    const scoria_job* job = api().job_at(ssn, j);
    const size_t task_count = api().job_task_count(job);
    for (size_t k = 0; k < task_count; ++k) {
      const scoria_task* task = api().job_task_at(job, k);
      if (task != nullptr && scoria::info(task).status == SCORIA_TASK_RUNNING) out.push_back(task);
    }
  }
  return out;
}

void shuffle(scoria_session* ssn) {
  const std::vector<const scoria_task*> candidates = running_tasks(ssn);
  if (candidates.empty()) return;
  std::vector<uint8_t> selected(candidates.size(), 0);
  api().session_victim_tasks(ssn, candidates.data(), candidates.size(), selected.data());

  scoria::Statement stmt(ssn);
  if (!stmt) {
    log_line(SCORIA_LOG_ERROR, "cannot open a statement");
    return;
  }
  size_t evicted = 0;
  for (size_t i = 0; i < candidates.size(); ++i) {
    if (selected[i] == 0) continue;
    const scoria_task_info ti = scoria::info(candidates[i]);
    const scoria_code rc = api().statement_evict(stmt.get(), candidates[i], scoria::str("shuffle"));
    if (rc != SCORIA_OK) {
      log_line(SCORIA_LOG_ERROR, "evicting <", scoria::view(ti.uid), "> failed: code ",
               static_cast<int>(rc));
      continue;
    }
    ++evicted;
    log_line(SCORIA_LOG_V3, "<", scoria::view(ti.uid), "> on node <", scoria::view(ti.node_name),
             "> will be evicted");
  }
  // Each eviction stands on its own, as Volcano evicts them one by one.
  if (const scoria_code rc = stmt.commit(); rc != SCORIA_OK) {
    log_line(SCORIA_LOG_ERROR, "commit failed: code ", static_cast<int>(rc));
  }
  log_line(SCORIA_LOG_V3, "", evicted, " of ", candidates.size(), " running tasks evicted");
}

scoria_code on_execute(void* /*instance*/, scoria_session* ssn) {
  return scoria::guarded([ssn] { shuffle(ssn); });
}

const scoria_descriptor kDescriptor = {
    .struct_size = sizeof(scoria_descriptor),
    .abi_major = SCORIA_ABI_VERSION_MAJOR,
    .abi_minor = SCORIA_ABI_VERSION_MINOR,
    .name = "shuffle",
    .kind = SCORIA_KIND_ACTION,
    .flags = SCORIA_FLAG_DECLARES_ARGS,  // Volcano's shuffle takes no arguments
    .version = "1.0.0",
    .description = "Evicts the running tasks that victim-task plugins select",
    .on_create = nullptr,
    .on_destroy = nullptr,
    .on_session_open = nullptr,
    .on_session_close = nullptr,
    .on_execute = on_execute,
    .args = nullptr,
    .arg_count = 0,
};

}  // namespace

SCORIA_DEFINE_PLUGIN(kDescriptor)
