/* A plugin built against the frozen SDK v1.4 header (tests/abi/frozen/v1.4),
 * never the current one: every later 1.x host must keep loading it and
 * honouring it. It scores nodes with what ABI 1.4 added:
 *   - session_object_count / session_object_json: a node annotated
 *     scoria.io/preferred-pdb: NAME scores 100 for every pod while the
 *     session holds a PodDisruptionBudget whose JSON names NAME;
 *   - job_min_task_member_count / job_min_task_member_at: a node annotated
 *     scoria.io/preferred-role: ROLE scores 200 for the pods of a job whose
 *     PodGroup's minTaskMember asks for at least one ROLE.
 * All are called after SCORIA_HOST_HAS. Every other node scores 0. */
#include <scoria/scoria.h>

#include <string.h>

static const scoria_host_api* host;
static const scoria_plugin_ctx* the_ctx;

static int same_text(scoria_str a, scoria_str b) {
  return a.len == b.len && (a.len == 0 || memcmp(a.data, b.data, a.len) == 0);
}

/* Whether `text` holds `word` between double quotes. */
static int holds_quoted(scoria_str text, scoria_str word) {
  size_t i;
  if (word.len == 0 || text.len < word.len + 2) return 0;
  for (i = 0; i + word.len + 2 <= text.len; ++i) {
    if (text.data[i] == '"' && text.data[i + word.len + 1] == '"' &&
        memcmp(text.data + i + 1, word.data, word.len) == 0)
      return 1;
  }
  return 0;
}

static int pdb_named(const scoria_session* ssn, scoria_str name) {
  scoria_str kind = {"PodDisruptionBudget", 19};
  size_t i, count;
  if (!SCORIA_HOST_HAS(host, session_object_json)) return 0;
  count = host->session_object_count(ssn, kind);
  for (i = 0; i < count; ++i)
    if (holds_quoted(host->session_object_json(ssn, kind, i), name)) return 1;
  return 0;
}

static int job_needs_role(const scoria_job* job, scoria_str role) {
  size_t i, count;
  if (!SCORIA_HOST_HAS(host, job_min_task_member_at)) return 0;
  count = host->job_min_task_member_count(job);
  for (i = 0; i < count; ++i) {
    scoria_str name = {NULL, 0};
    int32_t min = 0;
    host->job_min_task_member_at(job, i, &name, &min);
    if (min > 0 && same_text(name, role)) return 1;
  }
  return 0;
}

static scoria_code on_node_order(void* user_data, const scoria_task* task, const scoria_node* node,
                                 double* score) {
  scoria_task_info task_info;
  scoria_str pdb_key = {"scoria.io/preferred-pdb", 23};
  scoria_str role_key = {"scoria.io/preferred-role", 24};
  scoria_str wanted = {NULL, 0};
  (void)user_data;
  memset(&task_info, 0, sizeof task_info);
  task_info.struct_size = (uint32_t)sizeof task_info;
  *score = 0.0;
  if (host->task_info(task, &task_info) != SCORIA_OK) return SCORIA_ERROR;
  if (host->node_annotation(node, pdb_key, &wanted) == SCORIA_OK &&
      pdb_named(host->job_session(task_info.job), wanted))
    *score = 100.0;
  if (host->node_annotation(node, role_key, &wanted) == SCORIA_OK &&
      job_needs_role(task_info.job, wanted))
    *score = 200.0;
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
                                             "v14-object-role-node",
                                             SCORIA_KIND_PLUGIN,
                                             SCORIA_FLAG_DECLARES_ARGS,
                                             "1.4.0",
                                             "ABI fixture built against the frozen 1.4 header",
                                             NULL,
                                             NULL,
                                             on_session_open,
                                             NULL,
                                             NULL,
                                             NULL,
                                             0};

SCORIA_DEFINE_PLUGIN_C(descriptor, host, the_ctx)
