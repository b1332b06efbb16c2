/* A plugin built against the frozen SDK v1.13 header (tests/abi/frozen/v1.13),
 * never the current one: every later 1.x host must keep loading it and
 * honouring it. It uses what ABI 1.13 added, the cache-policy bit
 * SCORIA_CACHE_CLAIMS: its predicate admits only node-c, where the task's
 * claims allow it (session_volume_check), and it says its answers read the
 * claims only through the host, so a host may share them among pods alike
 * but for their claims' names. */
#include <scoria/scoria.h>

#include <stddef.h>

static const scoria_host_api* host;
static const scoria_plugin_ctx* the_ctx;
static const scoria_session* the_session;

static scoria_code node_c_with_claims(void* user_data, const scoria_task* task,
                                      const scoria_node* node, uint32_t* reason) {
  scoria_task_info info;
  scoria_node_info ni;
  (void)user_data;
  *reason = 0;
  info.struct_size = sizeof info;
  ni.struct_size = sizeof ni;
  if (host->task_info(task, &info) != SCORIA_OK) return SCORIA_ERROR;
  if (host->node_info(node, &ni) != SCORIA_OK || ni.name.len == 0) return SCORIA_ERROR;
  if (ni.name.data[ni.name.len - 1] != 'c') return SCORIA_UNSCHEDULABLE;
  if ((info.features & SCORIA_TASK_FEATURE_VOLUMES) == 0) return SCORIA_OK;
  if (!SCORIA_HOST_HAS(host, session_volume_check)) return SCORIA_UNSCHEDULABLE;
  return host->session_volume_check(the_session, task, node, SCORIA_VOLUME_BINDING, reason);
}

static uint32_t cache_policy(void* user_data, const scoria_task* task) {
  (void)user_data;
  (void)task;
  return SCORIA_CACHE_PREDICATE | SCORIA_CACHE_CLAIMS;
}

static scoria_code on_session_open(void* instance, scoria_session* ssn, scoria_hooks* hooks) {
  (void)instance;
  the_session = ssn;
  hooks->on_predicate = node_c_with_claims;
  if (hooks->struct_size >= offsetof(scoria_hooks, on_cache_policy) + sizeof hooks->on_cache_policy)
    hooks->on_cache_policy = cache_policy;
  return SCORIA_OK;
}

static const scoria_descriptor descriptor = {sizeof(scoria_descriptor),
                                             SCORIA_ABI_VERSION_MAJOR,
                                             SCORIA_ABI_VERSION_MINOR,
                                             "v113-claims",
                                             SCORIA_KIND_PLUGIN,
                                             SCORIA_FLAG_DECLARES_ARGS,
                                             "1.13.0",
                                             "ABI fixture built against the frozen 1.13 header",
                                             NULL,
                                             NULL,
                                             on_session_open,
                                             NULL,
                                             NULL,
                                             NULL,
                                             0};

SCORIA_DEFINE_PLUGIN_C(descriptor, host, the_ctx)
