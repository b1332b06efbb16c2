/* A plugin built against the frozen SDK v1.15 header (tests/abi/frozen/v1.15),
 * never the current one: every later 1.x host must keep loading it and
 * honouring it. It uses what ABI 1.15 added, session_queue_set_real_capability:
 * in on_session_open (the session's thread, as the function asks) it reports
 * a real capability for every queue of the session and checks each answer
 * against the header: a NULL queue, a NULL vector, a negative value and a NaN
 * are SCORIA_INVALID_ARGUMENT; a vector of values finite and >= 0 or
 * +infinity is SCORIA_OK. Its predicate admits only node-b when every answer
 * was as documented, and no node at all when one was not (or the host lacks
 * the function, or the session has no queue to report). */
#include <scoria/scoria.h>

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static const scoria_host_api* host;
static const scoria_plugin_ctx* the_ctx;
/* Written in on_session_open, before any hook of the session runs. */
static int contract_held;
static uint32_t not_node_b;
static uint32_t contract_broken;

static scoria_str str_of(const char* s) {
  scoria_str out;
  out.data = s;
  out.len = strlen(s);
  return out;
}

/* 1 if every session_queue_set_real_capability answer is the documented one. */
static int real_capability_as_documented(scoria_session* ssn) {
  size_t dims;
  size_t queues;
  size_t d;
  size_t i;
  double* valid;
  double* negative;
  double* not_a_number;
  int held = 1;
  if (!SCORIA_HOST_HAS(host, session_queue_set_real_capability)) return 0;
  dims = host->resource_dim_count(ssn);
  queues = host->queue_count(ssn);
  if (dims == 0 || queues == 0) return 0;
  valid = (double*)malloc(3 * dims * sizeof *valid);
  if (valid == NULL) return 0;
  negative = valid + dims;
  not_a_number = negative + dims;
  /* Zero (the least finite value allowed) in the first dimension, no limit
     in the others; the bad vectors differ from it in one value only, the
     last dimension and the first, so a host checking one end is caught. */
  for (d = 0; d < dims; ++d) valid[d] = d == 0 ? 0.0 : (double)INFINITY;
  memcpy(negative, valid, dims * sizeof *valid);
  memcpy(not_a_number, valid, dims * sizeof *valid);
  negative[dims - 1] = -1.0;
  not_a_number[0] = (double)NAN;

  if (host->session_queue_set_real_capability(ssn, NULL, valid) != SCORIA_INVALID_ARGUMENT)
    held = 0;
  for (i = 0; i < queues; ++i) {
    const scoria_queue* queue = host->queue_at(ssn, i);
    if (queue == NULL) {
      held = 0;
      continue;
    }
    if (host->session_queue_set_real_capability(ssn, queue, NULL) != SCORIA_INVALID_ARGUMENT)
      held = 0;
    if (host->session_queue_set_real_capability(ssn, queue, negative) !=
        SCORIA_INVALID_ARGUMENT)
      held = 0;
    if (host->session_queue_set_real_capability(ssn, queue, not_a_number) !=
        SCORIA_INVALID_ARGUMENT)
      held = 0;
    if (host->session_queue_set_real_capability(ssn, queue, valid) != SCORIA_OK) held = 0;
  }
  free(valid);
  return held;
}

static scoria_code node_b_if_held(void* user_data, const scoria_task* task,
                                  const scoria_node* node, uint32_t* reason) {
  scoria_node_info ni;
  const int held = *(const int*)user_data;
  (void)task;
  *reason = 0;
  if (!held) {
    *reason = contract_broken;
    return SCORIA_UNSCHEDULABLE;
  }
  ni.struct_size = sizeof ni;
  if (host->node_info(node, &ni) != SCORIA_OK) return SCORIA_ERROR;
  if (ni.name.len == 6 && memcmp(ni.name.data, "node-b", 6) == 0) return SCORIA_OK;
  *reason = not_node_b;
  return SCORIA_UNSCHEDULABLE;
}

static scoria_code on_session_open(void* instance, scoria_session* ssn, scoria_hooks* hooks) {
  (void)instance;
  if (not_node_b == 0) {
    not_node_b = host->reason_intern(str_of("v115-capability admits node-b alone"));
    contract_broken = host->reason_intern(
        str_of("session_queue_set_real_capability did not answer as ABI 1.15 documents"));
  }
  contract_held = real_capability_as_documented(ssn);
  if (!contract_held)
    host->log(the_ctx, SCORIA_LOG_ERROR,
              str_of("session_queue_set_real_capability did not answer as documented"));
  hooks->user_data = &contract_held;
  hooks->on_predicate = node_b_if_held;
  return SCORIA_OK;
}

static const scoria_descriptor descriptor = {sizeof(scoria_descriptor),
                                             SCORIA_ABI_VERSION_MAJOR,
                                             SCORIA_ABI_VERSION_MINOR,
                                             "v115-capability",
                                             SCORIA_KIND_PLUGIN,
                                             SCORIA_FLAG_DECLARES_ARGS,
                                             "1.15.0",
                                             "ABI fixture built against the frozen 1.15 header",
                                             NULL,
                                             NULL,
                                             on_session_open,
                                             NULL,
                                             NULL,
                                             NULL,
                                             0};

SCORIA_DEFINE_PLUGIN_C(descriptor, host, the_ctx)
