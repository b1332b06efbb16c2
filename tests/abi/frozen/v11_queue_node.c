/* A plugin built against the frozen SDK v1.1 header (tests/abi/frozen/v1.1),
 * never the current one: every later 1.x host must keep loading it and
 * honouring it. It scores nodes with what ABI 1.1 added:
 *   - scoria_task_info.features, read through a task_info of the 1.1 size:
 *     a task using host ports scores the node named by the argument
 *     host-ports-node 100;
 *   - the host function queue_annotation, called after SCORIA_HOST_HAS: any
 *     other task scores 100 the node named by its queue's annotation
 *     scoria.io/preferred-node.
 * Every other node scores 0. */
#include <scoria/scoria.h>

#include <string.h>

static const scoria_host_api* host;

typedef struct {
  char host_ports_node[64];
} instance;

static instance the_instance;

static int same_text(scoria_str a, scoria_str b) {
  return a.len == b.len && (a.len == 0 || memcmp(a.data, b.data, a.len) == 0);
}

static scoria_code on_create(const scoria_plugin_ctx* ctx, const scoria_args* args, void** out,
                             char* error, size_t capacity) {
  scoria_str key = {"host-ports-node", 15};
  scoria_str value = {NULL, 0};
  (void)ctx;
  if (host->args_get_string(args, key, &value) != SCORIA_OK || value.len == 0 ||
      value.len >= sizeof the_instance.host_ports_node) {
    if (capacity > 0) {
      strncpy(error, "argument host-ports-node (a node name) is required", capacity - 1);
      error[capacity - 1] = '\0';
    }
    return SCORIA_INVALID_ARGUMENT;
  }
  memcpy(the_instance.host_ports_node, value.data, value.len);
  the_instance.host_ports_node[value.len] = '\0';
  *out = &the_instance;
  return SCORIA_OK;
}

static scoria_code on_node_order(void* user_data, const scoria_task* task, const scoria_node* node,
                                 double* score) {
  const instance* self = (const instance*)user_data;
  scoria_task_info task_info;
  scoria_job_info job_info;
  scoria_node_info node_info;
  scoria_str key = {"scoria.io/preferred-node", 24};
  scoria_str preferred = {NULL, 0};
  scoria_str ports_node;
  memset(&task_info, 0, sizeof task_info);
  memset(&job_info, 0, sizeof job_info);
  memset(&node_info, 0, sizeof node_info);
  task_info.struct_size = (uint32_t)sizeof task_info; /* the 1.1 size, features included */
  job_info.struct_size = (uint32_t)sizeof job_info;
  node_info.struct_size = (uint32_t)sizeof node_info;
  if (host->task_info(task, &task_info) != SCORIA_OK ||
      host->node_info(node, &node_info) != SCORIA_OK)
    return SCORIA_ERROR;
  *score = 0.0;
  if (task_info.features & SCORIA_TASK_FEATURE_HOST_PORTS) {
    ports_node.data = self->host_ports_node;
    ports_node.len = strlen(self->host_ports_node);
    if (same_text(node_info.name, ports_node)) *score = 100.0;
    return SCORIA_OK;
  }
  if (!SCORIA_HOST_HAS(host, queue_annotation) || task_info.job == NULL ||
      host->job_info(task_info.job, &job_info) != SCORIA_OK || job_info.queue == NULL)
    return SCORIA_OK;
  if (host->queue_annotation(job_info.queue, key, &preferred) == SCORIA_OK &&
      same_text(preferred, node_info.name))
    *score = 100.0;
  return SCORIA_OK;
}

static scoria_code on_session_open(void* inst, scoria_session* ssn, scoria_hooks* hooks) {
  (void)ssn;
  hooks->user_data = inst;
  hooks->on_node_order = on_node_order;
  return SCORIA_OK;
}

static const scoria_descriptor descriptor = {
    sizeof(scoria_descriptor), SCORIA_ABI_VERSION_MAJOR, SCORIA_ABI_VERSION_MINOR, "v11-queue-node",
    SCORIA_KIND_PLUGIN, 0, "1.1.0", "ABI fixture built against the frozen 1.1 header",
    on_create, NULL, on_session_open, NULL, NULL};

SCORIA_EXPORT const scoria_descriptor* scoria_plugin_entry(uint32_t host_major, uint32_t host_minor,
                                                           const scoria_host_api* api,
                                                           const scoria_plugin_ctx* ctx) {
  (void)host_minor;
  (void)ctx;
  if (host_major != SCORIA_ABI_VERSION_MAJOR) return NULL;
  host = api;
  return &descriptor;
}
