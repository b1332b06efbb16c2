#include "abi/host_api_sub_jobs.h"

#include <algorithm>
#include <iterator>

#include "abi/host_api_adapters.h"
#include "session/session.h"

namespace scoria::abi {

using namespace adapters;
using session::Job;
using session::SubJob;

void fill_network_topology(const scoria_network_topology& t, scoria_network_topology* out) {
  SCORIA_FILL(out, mode, t.mode);
  SCORIA_FILL(out, declared_mode, t.declared_mode);
  SCORIA_FILL(out, highest_tier_allowed, t.highest_tier_allowed);
  SCORIA_FILL(out, has_highest_tier_allowed, t.has_highest_tier_allowed);
  SCORIA_FILL(out, allocated_hypernode, t.allocated_hypernode);
}

namespace sub_job_api {

namespace {
// A handle of `ssn`'s, or not: a plugin's stale or foreign pointer is refused.
bool of(const scoria_session* ssn, const scoria_sub_job* sub_job) {
  return ssn != nullptr && sub_job != nullptr && sub_job->ssn == mut(ssn);
}
}  // namespace

size_t job_sub_job_count(const scoria_job* job) { return job ? job->sub_job_count : 0; }

const scoria_sub_job* job_sub_job_at(const scoria_job* job, size_t i) {
  if (job == nullptr || i >= job->sub_job_count) return nullptr;
  return &job->ssn->sub_jobs()[job->first_sub_job + i];
}

const scoria_sub_job* task_sub_job(const scoria_task* task) {
  if (task == nullptr) return nullptr;
  return &task->ssn->sub_jobs()[task->sub_job];
}

scoria_code sub_job_info(const scoria_sub_job* s, scoria_sub_job_info* out) {
  if (s == nullptr || out == nullptr) return SCORIA_INVALID_ARGUMENT;
  SCORIA_FILL(out, index, s->index);
  SCORIA_FILL(out, job, &s->ssn->jobs()[s->job]);
  SCORIA_FILL(out, uid, S(s->uid));
  SCORIA_FILL(out, gid, S(s->gid));
  SCORIA_FILL(out, policy, s->policy);
  SCORIA_FILL(out, min_available, s->min_available);
  SCORIA_FILL(out, match_index, s->match_index);
  SCORIA_FILL(out, priority, s->priority);
  SCORIA_FILL(out, task_count, static_cast<int32_t>(s->size()));
  if (out->struct_size >= offsetof(scoria_sub_job_info, status_count) + sizeof out->status_count)
    std::copy(std::begin(s->status_count), std::end(s->status_count), out->status_count);
  SCORIA_FILL(out, pending_best_effort, s->pending_best_effort);
  return SCORIA_OK;
}

size_t sub_job_task_count(const scoria_sub_job* s) { return s ? s->size() : 0; }

const scoria_task* sub_job_task_at(const scoria_sub_job* s, size_t i) {
  if (s == nullptr || i >= s->size()) return nullptr;
  return &s->ssn->tasks()[s->ssn->sub_job_task(*s, i)];
}

size_t job_sub_group_policy_count(const scoria_job* job) {
  return job ? job->group->sub_group_policy.size() : 0;
}

scoria_code job_sub_group_policy_at(const scoria_job* job, size_t i,
                                    scoria_sub_group_policy_info* out) {
  if (job == nullptr || out == nullptr || i >= job->group->sub_group_policy.size())
    return SCORIA_INVALID_ARGUMENT;
  const model::SubGroupPolicy& p = job->group->sub_group_policy[i];
  SCORIA_FILL(out, sub_group_size, p.sub_group_size);
  SCORIA_FILL(out, name, S(p.name));
  SCORIA_FILL(out, min_sub_groups, p.min_sub_groups);
  return SCORIA_OK;
}

scoria_code sub_job_network_topology(const scoria_sub_job* s, scoria_network_topology* out) {
  if (s == nullptr || out == nullptr) return SCORIA_INVALID_ARGUMENT;
  fill_network_topology(s->topology, out);
  return SCORIA_OK;
}

scoria_code set_allocated_hypernode(scoria_session* ssn, const scoria_sub_job* s, uint32_t h) {
  if (!of(ssn, s) || (h != SCORIA_NO_HYPERNODE && h >= mut(ssn)->topology().size()))
    return SCORIA_INVALID_ARGUMENT;
  mut(ssn)->touch(mut(ssn)->jobs()[s->job]);
  const_cast<SubJob*>(s)->topology.allocated_hypernode = h;
  return SCORIA_OK;
}

int ready(scoria_session* ssn, const scoria_sub_job* s) {
  return of(ssn, s) && mut(ssn)->sub_job_ready(*s) ? 1 : 0;
}

int pipelined(scoria_session* ssn, const scoria_sub_job* s) {
  return of(ssn, s) && mut(ssn)->sub_job_pipelined(*s) ? 1 : 0;
}

int less(scoria_session* ssn, const scoria_sub_job* l, const scoria_sub_job* r) {
  return of(ssn, l) && of(ssn, r) && mut(ssn)->dispatch().sub_job_less(*l, *r) ? 1 : 0;
}

scoria_code hypernode_scores(scoria_session* ssn, const scoria_sub_job* s,
                             const uint32_t* hypernodes, size_t count, double* scores) {
  if (!of(ssn, s) || (count != 0 && (hypernodes == nullptr || scores == nullptr)))
    return SCORIA_INVALID_ARGUMENT;
  mut(ssn)->sub_job_hypernode_scores(*s, {hypernodes, count}, scores);
  return SCORIA_OK;
}

size_t hypernode_gradient(scoria_session* ssn, const scoria_sub_job* s, uint32_t root,
                          uint32_t purpose, uint32_t* hypernodes, uint32_t* gradient,
                          size_t capacity) {
  if (!of(ssn, s) || hypernodes == nullptr || gradient == nullptr ||
      root >= mut(ssn)->topology().size())
    return 0;
  return mut(ssn)->sub_job_hypernode_gradient(*s, root, purpose, hypernodes, gradient, capacity);
}

}  // namespace sub_job_api
}  // namespace scoria::abi
