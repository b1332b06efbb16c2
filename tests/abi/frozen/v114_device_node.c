/* A plugin built against the frozen SDK v1.14 header (tests/abi/frozen/v1.14),
 * never the current one: every later 1.x host must keep loading it and
 * honouring it. It uses what ABI 1.14 added, session_task_device_demands and
 * the task feature bit SCORIA_TASK_FEATURE_DEVICE_CLAIMS: its predicate
 * admits a task whose claims ask for N devices only on the node whose name
 * ends in the N-th letter after 'a' (one device: node-b, two: node-c). The
 * host answers demands on the session's thread only, so the plugin's hooks
 * are serial (SCORIA_FLAG_SERIAL_HOOKS). */
#include <scoria/scoria.h>

#include <stddef.h>

static const scoria_host_api* host;
static const scoria_plugin_ctx* the_ctx;
static const scoria_session* the_session;

static scoria_code node_by_devices(void* user_data, const scoria_task* task,
                                   const scoria_node* node, uint32_t* reason) {
  scoria_task_info info;
  scoria_node_info ni;
  const scoria_device_demand* demands;
  size_t count = 0;
  size_t i;
  double devices = 0;
  (void)user_data;
  *reason = 0;
  info.struct_size = sizeof info;
  ni.struct_size = sizeof ni;
  if (host->task_info(task, &info) != SCORIA_OK) return SCORIA_ERROR;
  if ((info.features & SCORIA_TASK_FEATURE_DEVICE_CLAIMS) == 0) return SCORIA_OK;
  if (!SCORIA_HOST_HAS(host, session_task_device_demands)) return SCORIA_UNSCHEDULABLE;
  demands = host->session_task_device_demands(the_session, task, &count);
  for (i = 0; i < count; ++i)
    if (demands[i].dimension.len == 0) devices += demands[i].amount;
  if (host->node_info(node, &ni) != SCORIA_OK || ni.name.len == 0) return SCORIA_ERROR;
  if (devices < 1 || devices > 25) return SCORIA_UNSCHEDULABLE;
  return ni.name.data[ni.name.len - 1] == (char)('a' + (int)devices) ? SCORIA_OK
                                                                     : SCORIA_UNSCHEDULABLE;
}

static scoria_code on_session_open(void* instance, scoria_session* ssn, scoria_hooks* hooks) {
  (void)instance;
  the_session = ssn;
  hooks->on_predicate = node_by_devices;
  return SCORIA_OK;
}

static const scoria_descriptor descriptor = {sizeof(scoria_descriptor),
                                             SCORIA_ABI_VERSION_MAJOR,
                                             SCORIA_ABI_VERSION_MINOR,
                                             "v114-devices",
                                             SCORIA_KIND_PLUGIN,
                                             SCORIA_FLAG_SERIAL_HOOKS | SCORIA_FLAG_DECLARES_ARGS,
                                             "1.14.0",
                                             "ABI fixture built against the frozen 1.14 header",
                                             NULL,
                                             NULL,
                                             on_session_open,
                                             NULL,
                                             NULL,
                                             NULL,
                                             0};

SCORIA_DEFINE_PLUGIN_C(descriptor, host, the_ctx)
