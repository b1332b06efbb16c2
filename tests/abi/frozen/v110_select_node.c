/* An action built against the frozen SDK v1.10 header (tests/abi/frozen/v1.10),
 * never the current one: every later 1.x host must keep loading it and
 * honouring it. It uses what ABI 1.10 added (checked with SCORIA_HOST_HAS):
 * it places the Pending tasks of each job whose job_info (of the 1.10 size)
 * counts no Pending best-effort task, each with session_select_node over
 * every node but the session's first, allocating where the choice fits the
 * idle resources now. */
#include <scoria/scoria.h>

#include <stddef.h>
#include <string.h>

static const scoria_host_api* host;
static const scoria_plugin_ctx* the_ctx;

enum { kMaxNodes = 16 };

static void place_job(scoria_session* ssn, const scoria_job* job,
                      const scoria_node* const* candidates, size_t count) {
  size_t k;
  for (k = 0; k < host->job_task_count(job); ++k) {
    const scoria_task* task = host->job_task_at(job, k);
    scoria_task_info ti;
    scoria_node_choice choice;
    scoria_statement* stmt;
    memset(&ti, 0, sizeof ti);
    ti.struct_size = (uint32_t)sizeof ti;
    if (host->task_info(task, &ti) != SCORIA_OK || ti.status != SCORIA_TASK_PENDING) continue;
    memset(&choice, 0, sizeof choice);
    choice.struct_size = (uint32_t)sizeof choice;
    if (host->session_select_node(ssn, task, candidates, count, &choice) != SCORIA_OK ||
        choice.node == NULL || choice.idle == 0)
      continue;
    stmt = host->statement_open(ssn);
    if (host->statement_allocate(stmt, task, choice.node) == SCORIA_OK)
      host->statement_commit(stmt);
    else
      host->statement_discard(stmt);
  }
}

static scoria_code on_execute(void* instance, scoria_session* ssn) {
  const scoria_node* candidates[kMaxNodes];
  size_t j, n, count = 0;
  (void)instance;
  if (!SCORIA_HOST_HAS(host, session_select_node)) return SCORIA_ERROR;
  for (n = 1; n < host->node_count(ssn) && count < kMaxNodes; ++n)
    candidates[count++] = host->node_at(ssn, n);
  for (j = 0; j < host->job_count(ssn); ++j) {
    const scoria_job* job = host->job_at(ssn, j);
    scoria_job_info ji;
    memset(&ji, 0, sizeof ji);
    ji.struct_size = (uint32_t)sizeof ji;
    if (host->job_info(job, &ji) != SCORIA_OK || ji.pending_best_effort != 0) continue;
    place_job(ssn, job, candidates, count);
  }
  return SCORIA_OK;
}

static const scoria_descriptor descriptor = {sizeof(scoria_descriptor),
                                             SCORIA_ABI_VERSION_MAJOR,
                                             SCORIA_ABI_VERSION_MINOR,
                                             "v110-select-node",
                                             SCORIA_KIND_ACTION,
                                             SCORIA_FLAG_DECLARES_ARGS,
                                             "1.10.0",
                                             "ABI fixture built against the frozen 1.10 header",
                                             NULL,
                                             NULL,
                                             NULL,
                                             NULL,
                                             on_execute,
                                             NULL,
                                             0};

SCORIA_DEFINE_PLUGIN_C(descriptor, host, the_ctx)
