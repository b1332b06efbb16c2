// The service table's sub-job functions (ABI 1.9): adapters from the C ABI
// onto the session's sub-jobs (session/sub_jobs.h forms them).
#pragma once

#include <scoria/scoria.h>

#include <cstddef>
#include <cstdint>

namespace scoria::abi {

/// Copies a prepared topology into *out as far as out->struct_size reaches
/// (job_network_topology and sub_job_network_topology).
void fill_network_topology(const scoria_network_topology& t, scoria_network_topology* out);

namespace sub_job_api {

size_t job_sub_job_count(const scoria_job* job);
const scoria_sub_job* job_sub_job_at(const scoria_job* job, size_t i);
const scoria_sub_job* task_sub_job(const scoria_task* task);
scoria_code sub_job_info(const scoria_sub_job* sub_job, scoria_sub_job_info* out);
size_t sub_job_task_count(const scoria_sub_job* sub_job);
const scoria_task* sub_job_task_at(const scoria_sub_job* sub_job, size_t i);
size_t job_sub_group_policy_count(const scoria_job* job);
scoria_code job_sub_group_policy_at(const scoria_job* job, size_t i,
                                    scoria_sub_group_policy_info* out);
scoria_code sub_job_network_topology(const scoria_sub_job* sub_job, scoria_network_topology* out);
scoria_code set_allocated_hypernode(scoria_session* ssn, const scoria_sub_job* sub_job,
                                    uint32_t hypernode);
int ready(scoria_session* ssn, const scoria_sub_job* sub_job);
int pipelined(scoria_session* ssn, const scoria_sub_job* sub_job);
int less(scoria_session* ssn, const scoria_sub_job* l, const scoria_sub_job* r);
scoria_code hypernode_scores(scoria_session* ssn, const scoria_sub_job* sub_job,
                             const uint32_t* hypernodes, size_t count, double* scores);
size_t hypernode_gradient(scoria_session* ssn, const scoria_sub_job* sub_job, uint32_t root,
                          uint32_t purpose, uint32_t* hypernodes, uint32_t* gradient,
                          size_t capacity);

}  // namespace sub_job_api
}  // namespace scoria::abi
