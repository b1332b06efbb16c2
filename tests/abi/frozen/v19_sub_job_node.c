/* A plugin built against the frozen SDK v1.9 header (tests/abi/frozen/v1.9),
 * never the current one: every later 1.x host must keep loading it and
 * honouring it. Its predicate uses what ABI 1.9 added, sub-jobs (checked with
 * SCORIA_HOST_HAS): a task in a sub-job of its PodGroup's subGroupPolicy
 * entry "worker" passes only on the node its sub-job's index names (sub-job 0
 * on node-b, sub-job 1 on node-c); any other task passes everywhere. */
#include <scoria/scoria.h>

#include <stddef.h>
#include <string.h>

static const scoria_host_api* host;
static const scoria_plugin_ctx* the_ctx;

/* The node for each sub-job index (a fixture: two sub-jobs). */
static const char* const node_of_sub_job[] = {"node-b", "node-c"};
#define NODES_NAMED (sizeof node_of_sub_job / sizeof node_of_sub_job[0])

static int str_is(scoria_str s, const char* c) {
  return s.len == strlen(c) && memcmp(s.data, c, s.len) == 0;
}

static scoria_code by_sub_job(void* user_data, const scoria_task* task, const scoria_node* node,
                              uint32_t* reason) {
  const scoria_sub_job* sub_job;
  scoria_sub_job_info si;
  scoria_sub_group_policy_info pi;
  scoria_node_info ni;
  (void)user_data;
  *reason = 0;
  sub_job = host->task_sub_job(task);
  if (sub_job == NULL) return SCORIA_ERROR;
  memset(&si, 0, sizeof si);
  si.struct_size = (uint32_t)sizeof si;
  if (host->sub_job_info(sub_job, &si) != SCORIA_OK) return SCORIA_ERROR;
  if (si.policy == SCORIA_NO_SUB_GROUP_POLICY) return SCORIA_OK;
  memset(&pi, 0, sizeof pi);
  pi.struct_size = (uint32_t)sizeof pi;
  if (host->job_sub_group_policy_at(si.job, si.policy, &pi) != SCORIA_OK) return SCORIA_ERROR;
  if (!str_is(pi.name, "worker")) return SCORIA_OK;
  if (si.index >= NODES_NAMED) return SCORIA_UNSCHEDULABLE;
  memset(&ni, 0, sizeof ni);
  ni.struct_size = (uint32_t)sizeof ni;
  if (host->node_info(node, &ni) != SCORIA_OK) return SCORIA_ERROR;
  return str_is(ni.name, node_of_sub_job[si.index]) ? SCORIA_OK : SCORIA_UNSCHEDULABLE;
}

static scoria_code on_session_open(void* instance, scoria_session* ssn, scoria_hooks* hooks) {
  (void)instance;
  (void)ssn;
  if (!SCORIA_HOST_HAS(host, task_sub_job) || !SCORIA_HOST_HAS(host, sub_job_info) ||
      !SCORIA_HOST_HAS(host, job_sub_group_policy_at))
    return SCORIA_ERROR;
  hooks->on_predicate = by_sub_job;
  return SCORIA_OK;
}

static const scoria_descriptor descriptor = {sizeof(scoria_descriptor),
                                             SCORIA_ABI_VERSION_MAJOR,
                                             SCORIA_ABI_VERSION_MINOR,
                                             "v19-sub-job-node",
                                             SCORIA_KIND_PLUGIN,
                                             SCORIA_FLAG_DECLARES_ARGS,
                                             "1.9.0",
                                             "ABI fixture built against the frozen 1.9 header",
                                             NULL,
                                             NULL,
                                             on_session_open,
                                             NULL,
                                             NULL,
                                             NULL,
                                             0};

SCORIA_DEFINE_PLUGIN_C(descriptor, host, the_ctx)
