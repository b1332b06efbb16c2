/* A plugin built against the frozen SDK v1.0 header (tests/abi/frozen/v1.0),
 * never the current one: every later 1.x host must keep loading it and
 * honouring it. It scores the node named by its argument `prefer` 100 and
 * every other node 0, reading node names through the 1.0 node_info. */
#include <scoria/scoria.h>

#include <string.h>

static const scoria_host_api* host;

typedef struct {
  char prefer[64];
} instance;

static instance the_instance;

static scoria_code on_create(const scoria_plugin_ctx* ctx, const scoria_args* args, void** out,
                             char* error, size_t capacity) {
  scoria_str key = {"prefer", 6};
  scoria_str value = {NULL, 0};
  (void)ctx;
  if (host->args_get_string(args, key, &value) != SCORIA_OK || value.len == 0 ||
      value.len >= sizeof the_instance.prefer) {
    if (capacity > 0) {
      strncpy(error, "argument prefer (a node name) is required", capacity - 1);
      error[capacity - 1] = '\0';
    }
    return SCORIA_INVALID_ARGUMENT;
  }
  memcpy(the_instance.prefer, value.data, value.len);
  the_instance.prefer[value.len] = '\0';
  *out = &the_instance;
  return SCORIA_OK;
}

static scoria_code on_node_order(void* user_data, const scoria_task* task, const scoria_node* node,
                                 double* score) {
  const instance* self = (const instance*)user_data;
  scoria_node_info info;
  (void)task;
  memset(&info, 0, sizeof info);
  info.struct_size = (uint32_t)sizeof info; /* the 1.0 size */
  if (host->node_info(node, &info) != SCORIA_OK) return SCORIA_ERROR;
  *score = (info.name.len == strlen(self->prefer) &&
            memcmp(info.name.data, self->prefer, info.name.len) == 0)
               ? 100.0
               : 0.0;
  return SCORIA_OK;
}

static scoria_code on_session_open(void* inst, scoria_session* ssn, scoria_hooks* hooks) {
  (void)ssn;
  hooks->user_data = inst;
  hooks->on_node_order = on_node_order;
  return SCORIA_OK;
}

static const scoria_descriptor descriptor = {
    sizeof(scoria_descriptor), SCORIA_ABI_VERSION_MAJOR, SCORIA_ABI_VERSION_MINOR, "v10-prefer-node",
    SCORIA_KIND_PLUGIN, 0, "1.0.0", "ABI fixture built against the frozen 1.0 header",
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
