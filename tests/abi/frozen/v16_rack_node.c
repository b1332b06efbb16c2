/* A plugin built against the frozen SDK v1.6 header (tests/abi/frozen/v1.6),
 * never the current one: every later 1.x host must keep loading it and
 * honouring it. Its predicate uses what ABI 1.6 added, the session's
 * HyperNodes (checked with SCORIA_HOST_HAS): a node passes only if it is
 * under the HyperNode "rack-b". */
#include <scoria/scoria.h>

#include <stddef.h>
#include <string.h>

static const scoria_host_api* host;
static const scoria_plugin_ctx* the_ctx;

/* user_data is the session (set at session open). */
static scoria_code in_rack_b(void* user_data, const scoria_task* task, const scoria_node* node,
                             uint32_t* reason) {
  const scoria_session* ssn = (const scoria_session*)user_data;
  scoria_node_info ni;
  scoria_hypernode_info hi;
  scoria_str name;
  uint32_t rack;
  size_t i;
  (void)task;
  *reason = 0;
  name.data = "rack-b";
  name.len = strlen(name.data);
  rack = host->hypernode_find(ssn, name);
  if (rack == SCORIA_NO_HYPERNODE) return SCORIA_UNSCHEDULABLE;
  ni.struct_size = (uint32_t)sizeof ni;
  hi.struct_size = (uint32_t)sizeof hi;
  if (host->node_info(node, &ni) != SCORIA_OK || host->hypernode_info(ssn, rack, &hi) != SCORIA_OK)
    return SCORIA_ERROR;
  for (i = 0; i < hi.node_count; ++i)
    if (hi.nodes[i] == ni.index) return SCORIA_OK;
  return SCORIA_UNSCHEDULABLE;
}

static scoria_code on_session_open(void* instance, scoria_session* ssn, scoria_hooks* hooks) {
  (void)instance;
  if (!SCORIA_HOST_HAS(host, hypernode_info)) return SCORIA_OK;
  hooks->user_data = ssn;
  hooks->on_predicate = in_rack_b;
  return SCORIA_OK;
}

static const scoria_descriptor descriptor = {sizeof(scoria_descriptor),
                                             SCORIA_ABI_VERSION_MAJOR,
                                             SCORIA_ABI_VERSION_MINOR,
                                             "v16-rack-b",
                                             SCORIA_KIND_PLUGIN,
                                             SCORIA_FLAG_DECLARES_ARGS,
                                             "1.6.0",
                                             "ABI fixture built against the frozen 1.6 header",
                                             NULL,
                                             NULL,
                                             on_session_open,
                                             NULL,
                                             NULL,
                                             NULL,
                                             0};

SCORIA_DEFINE_PLUGIN_C(descriptor, host, the_ctx)
