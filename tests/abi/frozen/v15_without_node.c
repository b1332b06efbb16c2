/* An action built against the frozen SDK v1.5 header (tests/abi/frozen/v1.5),
 * never the current one: every later 1.x host must keep loading it and
 * honouring it. It places each pending task with what ABI 1.5 added,
 * session_predicate_without (checked with SCORIA_HOST_HAS): on the first
 * node, in session order, where every predicate passes as if the tasks on
 * that node had left it. A pod that only a running pod's presence keeps off
 * a node (required pod anti-affinity) goes there; a pod the node refuses for
 * itself (a node selector) does not. */
#include <scoria/scoria.h>

#include <stddef.h>

static const scoria_host_api* host;
static const scoria_plugin_ctx* the_ctx;

enum { kMaxGone = 64 };

static int fits_emptied(scoria_session* ssn, const scoria_task* task, const scoria_node* node) {
  const scoria_task* gone[kMaxGone];
  size_t i, count = host->node_task_count(node);
  uint32_t reason = 0;
  if (count > kMaxGone) count = kMaxGone;
  for (i = 0; i < count; ++i) gone[i] = host->node_task_at(node, i);
  return host->session_predicate_without(ssn, task, node, gone, count, &reason) == SCORIA_OK;
}

static scoria_code on_execute(void* instance, scoria_session* ssn) {
  size_t j, k, n;
  (void)instance;
  if (!SCORIA_HOST_HAS(host, session_predicate_without)) return SCORIA_OK;
  for (j = 0; j < host->job_count(ssn); ++j) {
    const scoria_job* job = host->job_at(ssn, j);
    for (k = 0; k < host->job_task_count(job); ++k) {
      const scoria_task* task = host->job_task_at(job, k);
      scoria_task_info info;
      info.struct_size = (uint32_t)sizeof info;
      if (host->task_info(task, &info) != SCORIA_OK || info.status != SCORIA_TASK_PENDING)
        continue;
      for (n = 0; n < host->node_count(ssn); ++n) {
        const scoria_node* node = host->node_at(ssn, n);
        if (fits_emptied(ssn, task, node)) {
          scoria_statement* stmt = host->statement_open(ssn);
          if (host->statement_allocate(stmt, task, node) == SCORIA_OK) {
            host->statement_commit(stmt);
          } else {
            host->statement_discard(stmt);
          }
          break;
        }
      }
    }
  }
  return SCORIA_OK;
}

static const scoria_descriptor descriptor = {sizeof(scoria_descriptor),
                                             SCORIA_ABI_VERSION_MAJOR,
                                             SCORIA_ABI_VERSION_MINOR,
                                             "v15-place-without",
                                             SCORIA_KIND_ACTION,
                                             SCORIA_FLAG_DECLARES_ARGS,
                                             "1.5.0",
                                             "ABI fixture built against the frozen 1.5 header",
                                             NULL,
                                             NULL,
                                             NULL,
                                             NULL,
                                             on_execute,
                                             NULL,
                                             0};

SCORIA_DEFINE_PLUGIN_C(descriptor, host, the_ctx)
