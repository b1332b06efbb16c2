/* A plugin built against the frozen SDK v1.2 header (tests/abi/frozen/v1.2),
 * never the current one: every later 1.x host must keep loading it and
 * honouring it. It scores nodes with what ABI 1.2 added:
 *   - declared arguments (SCORIA_FLAG_DECLARES_ARGS): `label` (string,
 *     default scoria.io/preferred-node) and `score` (int, default 100, at
 *     least 1), the declared defaults filled in by the host;
 *   - the host function namespace_label, called after SCORIA_HOST_HAS: a
 *     task scores `score` on the node its Namespace's label `label` names.
 * Every other node scores 0. */
#include <scoria/scoria.h>

#include <string.h>

static const scoria_host_api* host;
static const scoria_plugin_ctx* the_ctx;

typedef struct {
  char label[128];
  int64_t score;
} instance;

static instance the_instance;

static int same_text(scoria_str a, scoria_str b) {
  return a.len == b.len && (a.len == 0 || memcmp(a.data, b.data, a.len) == 0);
}

static scoria_code on_create(const scoria_plugin_ctx* ctx, const scoria_args* args, void** out,
                             char* error, size_t capacity) {
  scoria_str label_key = {"label", 5};
  scoria_str score_key = {"score", 5};
  scoria_str label = {NULL, 0};
  (void)ctx;
  /* Both have declared defaults, so the host always passes them. */
  if (host->args_get_string(args, label_key, &label) != SCORIA_OK ||
      label.len >= sizeof the_instance.label ||
      host->args_get_int(args, score_key, &the_instance.score) != SCORIA_OK) {
    if (capacity > 0) {
      strncpy(error, "the host did not pass the declared defaults", capacity - 1);
      error[capacity - 1] = '\0';
    }
    return SCORIA_INVALID_ARGUMENT;
  }
  memcpy(the_instance.label, label.data, label.len);
  the_instance.label[label.len] = '\0';
  *out = &the_instance;
  return SCORIA_OK;
}

static scoria_code on_node_order(void* user_data, const scoria_task* task, const scoria_node* node,
                                 double* score) {
  const instance* self = (const instance*)user_data;
  scoria_task_info task_info;
  scoria_job_info job_info;
  scoria_node_info node_info;
  scoria_str key;
  scoria_str preferred = {NULL, 0};
  memset(&task_info, 0, sizeof task_info);
  memset(&job_info, 0, sizeof job_info);
  memset(&node_info, 0, sizeof node_info);
  task_info.struct_size = (uint32_t)sizeof task_info; /* the 1.2 size */
  job_info.struct_size = (uint32_t)sizeof job_info;
  node_info.struct_size = (uint32_t)sizeof node_info;
  *score = 0.0;
  if (host->task_info(task, &task_info) != SCORIA_OK ||
      host->node_info(node, &node_info) != SCORIA_OK || task_info.job == NULL ||
      host->job_info(task_info.job, &job_info) != SCORIA_OK)
    return SCORIA_ERROR;
  if (!SCORIA_HOST_HAS(host, namespace_label)) return SCORIA_OK;
  key.data = self->label;
  key.len = strlen(self->label);
  if (host->namespace_label(host->job_session(task_info.job), task_info.namespace_, key,
                            &preferred) == SCORIA_OK &&
      same_text(preferred, node_info.name))
    *score = (double)self->score;
  return SCORIA_OK;
}

static scoria_code on_session_open(void* inst, scoria_session* ssn, scoria_hooks* hooks) {
  (void)ssn;
  hooks->user_data = inst;
  hooks->on_node_order = on_node_order;
  return SCORIA_OK;
}

static const scoria_arg_spec args[] = {
    {sizeof(scoria_arg_spec), SCORIA_ARG_STRING, "label", "scoria.io/preferred-node",
     "the Namespace label naming the preferred node", NULL, 0, 0, 0.0, 0.0},
    {sizeof(scoria_arg_spec), SCORIA_ARG_INT, "score", "100", "the preferred node's score", NULL,
     SCORIA_ARG_HAS_MIN, 0, 1.0, 0.0},
};

static const scoria_descriptor descriptor = {
    sizeof(scoria_descriptor), SCORIA_ABI_VERSION_MAJOR, SCORIA_ABI_VERSION_MINOR,
    "v12-namespace-node", SCORIA_KIND_PLUGIN, SCORIA_FLAG_DECLARES_ARGS, "1.2.0",
    "ABI fixture built against the frozen 1.2 header", on_create, NULL, on_session_open, NULL,
    NULL, args, sizeof args / sizeof args[0]};

SCORIA_DEFINE_PLUGIN_C(descriptor, host, the_ctx)
