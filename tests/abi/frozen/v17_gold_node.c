/* A plugin built against the frozen SDK v1.7 header (tests/abi/frozen/v1.7),
 * never the current one: every later 1.x host must keep loading it and
 * honouring it. It uses what ABI 1.7 added, the cache policy: its predicate
 * (a node passes only with the label tier=gold) is a pure function of the
 * task's class and the node, so it declares it cacheable, and the host may
 * reuse its answers for the second of two alike pods. */
#include <scoria/scoria.h>

#include <stddef.h>
#include <string.h>

static const scoria_host_api* host;
static const scoria_plugin_ctx* the_ctx;

static scoria_code gold_only(void* user_data, const scoria_task* task, const scoria_node* node,
                             uint32_t* reason) {
  scoria_str key;
  scoria_str value;
  (void)user_data;
  (void)task;
  *reason = 0;
  key.data = "tier";
  key.len = strlen(key.data);
  if (host->node_label(node, key, &value) != SCORIA_OK) return SCORIA_UNSCHEDULABLE;
  if (value.len != 4 || memcmp(value.data, "gold", 4) != 0) return SCORIA_UNSCHEDULABLE;
  return SCORIA_OK;
}

static uint32_t cache_policy(void* user_data, const scoria_task* task) {
  (void)user_data;
  (void)task;
  return SCORIA_CACHE_PREDICATE;
}

static scoria_code on_session_open(void* instance, scoria_session* ssn, scoria_hooks* hooks) {
  (void)instance;
  (void)ssn;
  hooks->on_predicate = gold_only;
  if (hooks->struct_size >= offsetof(scoria_hooks, on_cache_policy) + sizeof hooks->on_cache_policy)
    hooks->on_cache_policy = cache_policy;
  return SCORIA_OK;
}

static const scoria_descriptor descriptor = {sizeof(scoria_descriptor),
                                             SCORIA_ABI_VERSION_MAJOR,
                                             SCORIA_ABI_VERSION_MINOR,
                                             "v17-gold",
                                             SCORIA_KIND_PLUGIN,
                                             SCORIA_FLAG_DECLARES_ARGS,
                                             "1.7.0",
                                             "ABI fixture built against the frozen 1.7 header",
                                             NULL,
                                             NULL,
                                             on_session_open,
                                             NULL,
                                             NULL,
                                             NULL,
                                             0};

SCORIA_DEFINE_PLUGIN_C(descriptor, host, the_ctx)
