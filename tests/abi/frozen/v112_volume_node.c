/* A plugin built against the frozen SDK v1.12 header (tests/abi/frozen/v1.12),
 * never the current one: every later 1.x host must keep loading it and
 * honouring it. It uses what ABI 1.12 added, session_volume_check: its
 * predicate admits a node only where the task's claims allow it, and,
 * reading the claim's name in the pod's JSON, only the node that name
 * points at (data-0: node-b, data-1: node-c). It declares its answers
 * cacheable for every task, as a 1.12 plugin could: they are a function of
 * the pod's class, which then kept claim names. A later host that shares
 * answers among pods whose claims differ in name only must not do it for
 * this plugin, which never said it reads claims only through the host. */
#include <scoria/scoria.h>

#include <stddef.h>
#include <string.h>

static const scoria_host_api* host;
static const scoria_plugin_ctx* the_ctx;
static const scoria_session* the_session;

static scoria_code claims_allow(void* user_data, const scoria_task* task, const scoria_node* node,
                                uint32_t* reason) {
  scoria_task_info info;
  (void)user_data;
  *reason = 0;
  info.struct_size = sizeof info;
  if (host->task_info(task, &info) != SCORIA_OK) return SCORIA_ERROR;
  if ((info.features & SCORIA_TASK_FEATURE_VOLUMES) == 0) return SCORIA_OK;
  if (!SCORIA_HOST_HAS(host, session_volume_check)) return SCORIA_UNSCHEDULABLE;
  {
    const scoria_code code =
        host->session_volume_check(the_session, task, node, SCORIA_VOLUME_BINDING, reason);
    if (code != SCORIA_OK) return code;
  }
  {
    /* The digit after "data-" in the pod's JSON names the node: 0 -> node-b. */
    const scoria_str json = host->task_object_json(task);
    scoria_node_info ni;
    size_t i;
    ni.struct_size = sizeof ni;
    if (host->node_info(node, &ni) != SCORIA_OK || ni.name.len == 0) return SCORIA_ERROR;
    for (i = 0; i + 6 <= json.len; ++i)
      if (memcmp(json.data + i, "data-", 5) == 0)
        return ni.name.data[ni.name.len - 1] == (char)('b' + (json.data[i + 5] - '0'))
                   ? SCORIA_OK
                   : SCORIA_UNSCHEDULABLE;
  }
  return SCORIA_UNSCHEDULABLE;
}

static uint32_t cache_policy(void* user_data, const scoria_task* task) {
  (void)user_data;
  (void)task;
  return SCORIA_CACHE_PREDICATE;
}

static scoria_code on_session_open(void* instance, scoria_session* ssn, scoria_hooks* hooks) {
  (void)instance;
  the_session = ssn;
  hooks->on_predicate = claims_allow;
  if (hooks->struct_size >= offsetof(scoria_hooks, on_cache_policy) + sizeof hooks->on_cache_policy)
    hooks->on_cache_policy = cache_policy;
  return SCORIA_OK;
}

static const scoria_descriptor descriptor = {sizeof(scoria_descriptor),
                                             SCORIA_ABI_VERSION_MAJOR,
                                             SCORIA_ABI_VERSION_MINOR,
                                             "v112-volume",
                                             SCORIA_KIND_PLUGIN,
                                             SCORIA_FLAG_DECLARES_ARGS,
                                             "1.12.0",
                                             "ABI fixture built against the frozen 1.12 header",
                                             NULL,
                                             NULL,
                                             on_session_open,
                                             NULL,
                                             NULL,
                                             NULL,
                                             0};

SCORIA_DEFINE_PLUGIN_C(descriptor, host, the_ctx)
