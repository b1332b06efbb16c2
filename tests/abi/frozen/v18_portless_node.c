/* A plugin built against the frozen SDK v1.8 header (tests/abi/frozen/v1.8),
 * never the current one: every later 1.x host must keep loading it and
 * honouring it. It uses what ABI 1.8 added, session_tasks_with_features: at
 * session open it finds the pods that use a host port, and its predicate
 * refuses the nodes they are on. */
#include <scoria/scoria.h>

#include <stddef.h>
#include <string.h>

static const scoria_host_api* host;
static const scoria_plugin_ctx* the_ctx;

/* The nodes of this session's host-port pods, by name (a fixture: a few). */
#define MAX_BUSY 16
static scoria_str busy[MAX_BUSY];
static size_t busy_count;

static scoria_code portless(void* user_data, const scoria_task* task, const scoria_node* node,
                            uint32_t* reason) {
  scoria_node_info ni;
  size_t i;
  (void)user_data;
  (void)task;
  *reason = 0;
  memset(&ni, 0, sizeof ni);
  ni.struct_size = sizeof ni;
  if (host->node_info(node, &ni) != SCORIA_OK) return SCORIA_UNSCHEDULABLE;
  for (i = 0; i < busy_count; ++i)
    if (busy[i].len == ni.name.len && memcmp(busy[i].data, ni.name.data, ni.name.len) == 0)
      return SCORIA_UNSCHEDULABLE;
  return SCORIA_OK;
}

static scoria_code on_session_open(void* instance, scoria_session* ssn, scoria_hooks* hooks) {
  const scoria_task* found[MAX_BUSY];
  size_t n;
  size_t i;
  (void)instance;
  busy_count = 0;
  if (!SCORIA_HOST_HAS(host, session_tasks_with_features)) return SCORIA_ERROR;
  n = host->session_tasks_with_features(ssn, SCORIA_TASK_FEATURE_HOST_PORTS, found, MAX_BUSY);
  if (n > MAX_BUSY) n = MAX_BUSY;
  for (i = 0; i < n; ++i) {
    scoria_task_info ti;
    memset(&ti, 0, sizeof ti);
    ti.struct_size = sizeof ti;
    if (host->task_info(found[i], &ti) == SCORIA_OK && ti.node_name.len > 0)
      busy[busy_count++] = ti.node_name;
  }
  hooks->on_predicate = portless;
  return SCORIA_OK;
}

static const scoria_descriptor descriptor = {sizeof(scoria_descriptor),
                                             SCORIA_ABI_VERSION_MAJOR,
                                             SCORIA_ABI_VERSION_MINOR,
                                             "v18-portless",
                                             SCORIA_KIND_PLUGIN,
                                             SCORIA_FLAG_DECLARES_ARGS,
                                             "1.8.0",
                                             "ABI fixture built against the frozen 1.8 header",
                                             NULL,
                                             NULL,
                                             on_session_open,
                                             NULL,
                                             NULL,
                                             NULL,
                                             0};

SCORIA_DEFINE_PLUGIN_C(descriptor, host, the_ctx)
