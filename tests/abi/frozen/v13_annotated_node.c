/* A plugin built against the frozen SDK v1.3 header (tests/abi/frozen/v1.3),
 * never the current one: every later 1.x host must keep loading it and
 * honouring it. It scores nodes with what ABI 1.3 added:
 *   - node_annotation: a node annotated scoria.io/preferred-pod: NAME is
 *     preferred by the pod NAME;
 *   - session_now_ms: only from the time (milliseconds since the epoch) its
 *     annotation scoria.io/preferred-from-ms gives, if any;
 *   - task_info of the 1.3 size (scheduled_ms is 0 for a pending pod).
 * Both are called after SCORIA_HOST_HAS. Every other node scores 0. */
#include <scoria/scoria.h>

#include <stdlib.h>
#include <string.h>

static const scoria_host_api* host;
static const scoria_plugin_ctx* the_ctx;

static int same_text(scoria_str a, scoria_str b) {
  return a.len == b.len && (a.len == 0 || memcmp(a.data, b.data, a.len) == 0);
}

/* The annotation as a number of milliseconds; -1 when it does not parse. */
static long long parse_ms(scoria_str text) {
  char buffer[32];
  char* end = NULL;
  long long value;
  if (text.len == 0 || text.len >= sizeof buffer) return -1;
  memcpy(buffer, text.data, text.len);
  buffer[text.len] = '\0';
  value = strtoll(buffer, &end, 10);
  return *end == '\0' && value >= 0 ? value : -1;
}

static scoria_code on_node_order(void* user_data, const scoria_task* task, const scoria_node* node,
                                 double* score) {
  scoria_task_info task_info;
  scoria_str preferred_key = {"scoria.io/preferred-pod", 23};
  scoria_str from_key = {"scoria.io/preferred-from-ms", 27};
  scoria_str preferred = {NULL, 0};
  scoria_str from = {NULL, 0};
  (void)user_data;
  memset(&task_info, 0, sizeof task_info);
  task_info.struct_size = (uint32_t)sizeof task_info; /* the 1.3 size */
  *score = 0.0;
  if (host->task_info(task, &task_info) != SCORIA_OK) return SCORIA_ERROR;
  if (task_info.scheduled_ms != 0) return SCORIA_ERROR; /* a pending pod was never scheduled */
  if (!SCORIA_HOST_HAS(host, node_annotation) || !SCORIA_HOST_HAS(host, session_now_ms))
    return SCORIA_OK;
  if (host->node_annotation(node, preferred_key, &preferred) != SCORIA_OK ||
      !same_text(preferred, task_info.name))
    return SCORIA_OK;
  if (host->node_annotation(node, from_key, &from) == SCORIA_OK &&
      host->session_now_ms(host->job_session(task_info.job)) < parse_ms(from))
    return SCORIA_OK;
  *score = 100.0;
  return SCORIA_OK;
}

static scoria_code on_session_open(void* inst, scoria_session* ssn, scoria_hooks* hooks) {
  (void)ssn;
  hooks->user_data = inst;
  hooks->on_node_order = on_node_order;
  return SCORIA_OK;
}

static const scoria_descriptor descriptor = {sizeof(scoria_descriptor),
                                             SCORIA_ABI_VERSION_MAJOR,
                                             SCORIA_ABI_VERSION_MINOR,
                                             "v13-annotated-node",
                                             SCORIA_KIND_PLUGIN,
                                             SCORIA_FLAG_DECLARES_ARGS,
                                             "1.3.0",
                                             "ABI fixture built against the frozen 1.3 header",
                                             NULL,
                                             NULL,
                                             on_session_open,
                                             NULL,
                                             NULL,
                                             NULL,
                                             0};

SCORIA_DEFINE_PLUGIN_C(descriptor, host, the_ctx)
