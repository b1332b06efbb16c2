/*
 * scoria.h as strict C99 (-pedantic-errors -Werror): every type, enum and
 * macro of the header is used here the way a C plugin would use it, so a
 * C++-ism slipping into the header breaks this build.
 *
 * scoria_abi_c_sizeof also reports C's view of each size, which
 * abi_layout_test.cpp compares with C++'s: a plugin written in C and a host
 * written in C++ must agree on every struct.
 */
#include <scoria/scoria.h>

#include <string.h>

size_t scoria_abi_c_sizeof(const char* type);
int scoria_abi_header_c_check(const scoria_host_api* api, const scoria_plugin_ctx* ctx,
                              scoria_session* ssn);

size_t scoria_abi_c_sizeof(const char* type) {
  static const struct {
    const char* name;
    size_t size;
  } sizes[] = {
      {"scoria_str", sizeof(scoria_str)},
      {"scoria_task_info", sizeof(scoria_task_info)},
      {"scoria_job_info", sizeof(scoria_job_info)},
      {"scoria_queue_info", sizeof(scoria_queue_info)},
      {"scoria_node_info", sizeof(scoria_node_info)},
      {"scoria_taint", sizeof(scoria_taint)},
      {"scoria_toleration", sizeof(scoria_toleration)},
      {"scoria_selector_requirement", sizeof(scoria_selector_requirement)},
      {"scoria_hooks", sizeof(scoria_hooks)},
      {"scoria_host_api", sizeof(scoria_host_api)},
      {"scoria_descriptor", sizeof(scoria_descriptor)},
      {"scoria_code", sizeof(scoria_code)},
      {"scoria_vote", sizeof(scoria_vote)},
      {"scoria_kind", sizeof(scoria_kind)},
      {"scoria_log_level", sizeof(scoria_log_level)},
      {"scoria_task_status", sizeof(scoria_task_status)},
      {"scoria_job_phase", sizeof(scoria_job_phase)},
      {"scoria_taint_effect", sizeof(scoria_taint_effect)},
      {"scoria_selector_op", sizeof(scoria_selector_op)},
      {"scoria_affinity_kind", sizeof(scoria_affinity_kind)},
      {"scoria_entry_fn", sizeof(scoria_entry_fn)},
      {"scoria_arg_spec", sizeof(scoria_arg_spec)},
      {"scoria_arg_type", sizeof(scoria_arg_type)},
      {"scoria_eviction_kind", sizeof(scoria_eviction_kind)},
      {"scoria_eviction_context", sizeof(scoria_eviction_context)},
      {"scoria_hypernode_info", sizeof(scoria_hypernode_info)},
      {"scoria_network_topology", sizeof(scoria_network_topology)},
      {"scoria_sub_job_info", sizeof(scoria_sub_job_info)},
      {"scoria_sub_group_policy_info", sizeof(scoria_sub_group_policy_info)},
      {"scoria_node_choice", sizeof(scoria_node_choice)},
      {"scoria_queue_job_sums", sizeof(scoria_queue_job_sums)},
      {"scoria_device_demand", sizeof(scoria_device_demand)},
  };
  size_t i;
  for (i = 0; i < sizeof sizes / sizeof sizes[0]; ++i)
    if (strcmp(sizes[i].name, type) == 0) return sizes[i].size;
  return 0;
}

/* Hooks with the exact signatures scoria_hooks declares. */
static int job_order(void* user_data, const scoria_job* l, const scoria_job* r) {
  (void)user_data;
  return l == r ? 0 : -1;
}
static int queue_order(void* user_data, const scoria_queue* l, const scoria_queue* r) {
  (void)user_data;
  return l == r ? 0 : -1;
}
static int task_order(void* user_data, const scoria_task* l, const scoria_task* r) {
  (void)user_data;
  return l == r ? 0 : -1;
}
static int victim_queue_order(void* user_data, const scoria_queue* l, const scoria_queue* r,
                              const scoria_task* preemptor) {
  (void)user_data;
  (void)preemptor;
  return l == r ? 0 : 1;
}
static scoria_code predicate(void* user_data, const scoria_task* task, const scoria_node* node,
                             uint32_t* reason) {
  (void)user_data;
  (void)task;
  (void)node;
  *reason = 0;
  return SCORIA_UNSCHEDULABLE_AND_UNRESOLVABLE;
}
static scoria_code predicate_batch(void* user_data, const scoria_task* task,
                                   const scoria_node* const* nodes, size_t count,
                                   scoria_code* codes, uint32_t* reasons) {
  size_t i;
  for (i = 0; i < count; ++i) codes[i] = predicate(user_data, task, nodes[i], &reasons[i]);
  return SCORIA_OK;
}
static scoria_code node_order(void* user_data, const scoria_task* task, const scoria_node* node,
                              double* score) {
  (void)user_data;
  (void)task;
  (void)node;
  *score = SCORIA_RESOURCE_EPSILON;
  return SCORIA_OK;
}
static scoria_code node_order_batch(void* user_data, const scoria_task* task,
                                    const scoria_node* const* nodes, size_t count, double* scores) {
  size_t i;
  for (i = 0; i < count; ++i) node_order(user_data, task, nodes[i], &scores[i]);
  return SCORIA_SKIP;
}
static int64_t best_node(void* user_data, const scoria_task* task, const scoria_node* const* nodes,
                         const double* scores, size_t count) {
  (void)user_data;
  (void)task;
  (void)nodes;
  (void)scores;
  return count == 0 ? -1 : 0;
}
static scoria_code job_valid(void* user_data, const scoria_job* job, char* message,
                             size_t message_capacity) {
  (void)user_data;
  (void)job;
  if (message_capacity > 0) message[0] = '\0';
  return SCORIA_OK;
}
static int job_ready(void* user_data, const scoria_job* job) {
  (void)user_data;
  return job != NULL;
}
static scoria_vote job_pipelined(void* user_data, const scoria_job* job) {
  (void)user_data;
  (void)job;
  return SCORIA_VOTE_ABSTAIN;
}
static scoria_vote job_enqueueable(void* user_data, const scoria_job* job) {
  (void)user_data;
  return job != NULL ? SCORIA_VOTE_PERMIT : SCORIA_VOTE_REJECT;
}
static void job_enqueued(void* user_data, const scoria_job* job) {
  (void)user_data;
  (void)job;
}
static int job_starving(void* user_data, const scoria_job* job) {
  (void)user_data;
  (void)job;
  return 0;
}
static int overused(void* user_data, const scoria_queue* queue) {
  (void)user_data;
  (void)queue;
  return 0;
}
static int allocatable(void* user_data, const scoria_queue* queue, const scoria_task* task) {
  (void)user_data;
  (void)queue;
  (void)task;
  return 1;
}
static scoria_vote preemptable(void* user_data, const scoria_task* preemptor,
                               const scoria_task* const* candidates, size_t count,
                               uint8_t* selected) {
  (void)user_data;
  (void)preemptor;
  (void)candidates;
  if (count > 0) selected[0] = 1;
  return SCORIA_VOTE_PERMIT;
}
static void victim_tasks(void* user_data, const scoria_task* const* tasks, size_t count,
                         uint8_t* selected) {
  (void)user_data;
  (void)tasks;
  memset(selected, 0, count);
}
static void on_event(void* user_data, const scoria_task* task) {
  (void)user_data;
  (void)task;
}

static scoria_code create(const scoria_plugin_ctx* ctx, const scoria_args* args, void** instance,
                          char* error, size_t error_capacity) {
  (void)ctx;
  (void)args;
  (void)error;
  (void)error_capacity;
  *instance = NULL;
  return SCORIA_OK;
}
static void destroy(void* instance) { (void)instance; }
static scoria_code session_open(void* instance, scoria_session* ssn, scoria_hooks* hooks) {
  (void)instance;
  (void)ssn;
  hooks->user_data = NULL;
  hooks->on_job_order = job_order;
  hooks->on_queue_order = queue_order;
  hooks->on_task_order = task_order;
  hooks->on_victim_queue_order = victim_queue_order;
  hooks->on_predicate = predicate;
  hooks->on_predicate_batch = predicate_batch;
  hooks->on_node_order = node_order;
  hooks->on_node_order_batch = node_order_batch;
  hooks->on_best_node = best_node;
  hooks->on_job_valid = job_valid;
  hooks->on_job_ready = job_ready;
  hooks->on_job_pipelined = job_pipelined;
  hooks->on_job_enqueueable = job_enqueueable;
  hooks->on_job_enqueued = job_enqueued;
  hooks->on_job_starving = job_starving;
  hooks->on_overused = overused;
  hooks->on_allocatable = allocatable;
  hooks->on_preemptable = preemptable;
  hooks->on_reclaimable = preemptable;
  hooks->on_victim_tasks = victim_tasks;
  hooks->on_allocate = on_event;
  hooks->on_deallocate = on_event;
  return SCORIA_OK;
}
static void session_close(void* instance, scoria_session* ssn) {
  (void)instance;
  (void)ssn;
}
static scoria_code execute(void* instance, scoria_session* ssn) {
  (void)instance;
  (void)ssn;
  return SCORIA_OK;
}

static const char* const check_values[] = {"a", "b", NULL};
static const scoria_arg_spec check_args[] = {
    {sizeof(scoria_arg_spec), SCORIA_ARG_STRING, "mode", "a", "one of a or b", check_values, 0, 0,
     0.0, 0.0},
    {sizeof(scoria_arg_spec), SCORIA_ARG_INT, "weight", "1", "a weight", NULL,
     SCORIA_ARG_HAS_MIN | SCORIA_ARG_HAS_MAX, 0, 0.0, 100.0},
};

static const scoria_descriptor descriptor = {
    .struct_size = sizeof(scoria_descriptor),
    .abi_major = SCORIA_ABI_VERSION_MAJOR,
    .abi_minor = SCORIA_ABI_VERSION_MINOR,
    .name = "header_c_check",
    .kind = SCORIA_KIND_PLUGIN,
    .flags = SCORIA_FLAG_SERIAL_HOOKS,
    .version = "1.0.0",
    .description = "C99 check of scoria.h",
    .on_create = create,
    .on_destroy = destroy,
    .on_session_open = session_open,
    .on_session_close = session_close,
    .on_execute = execute,
    .args = check_args,
    .arg_count = sizeof check_args / sizeof check_args[0],
};

static const scoria_descriptor* entry(uint32_t host_major, uint32_t host_minor,
                                      const scoria_host_api* host, const scoria_plugin_ctx* ctx) {
  (void)host_minor;
  (void)host;
  (void)ctx;
  return host_major == SCORIA_ABI_VERSION_MAJOR ? &descriptor : NULL;
}

/* Reads through the host table the way a C action would. Compiled, never run. */
int scoria_abi_header_c_check(const scoria_host_api* api, const scoria_plugin_ctx* ctx,
                              scoria_session* ssn) {
  static const char symbol[] = SCORIA_ENTRY_SYMBOL;
  scoria_entry_fn fn = entry;
  scoria_str text;
  scoria_code code;
  scoria_kind kind = SCORIA_KIND_ACTION;
  scoria_log_level level = SCORIA_LOG_V5;
  scoria_task_status status = SCORIA_TASK_UNKNOWN;
  scoria_job_phase phase = SCORIA_PHASE_COMPLETED;
  scoria_taint_effect effect = SCORIA_TAINT_NO_EXECUTE;
  scoria_selector_op op = SCORIA_OP_EQUAL;
  scoria_affinity_kind affinity = SCORIA_AFFINITY_PREFERRED;
  scoria_task_info task_info;
  scoria_job_info job_info;
  scoria_queue_info queue_info;
  scoria_node_info node_info;
  scoria_taint taint;
  scoria_toleration toleration;
  scoria_selector_requirement requirement;
  scoria_hooks hooks;
  const scoria_job* job;
  const scoria_task* task;
  const scoria_node* node;
  const scoria_queue* queue;
  const scoria_args* args = NULL;
  scoria_statement* stmt;
  int64_t number = 0;

  if (fn(SCORIA_ABI_VERSION_MAJOR, SCORIA_ABI_VERSION_MINOR, api, ctx) == NULL) return 1;
  if (!SCORIA_HOST_HAS(api, statement_size)) return 1;
  text.data = symbol;
  text.len = sizeof symbol - 1;
  if (api->log_enabled(ctx, level)) api->log(ctx, SCORIA_LOG_INFO, text);
  if (api->args_get_int(args, text, &number) == SCORIA_NOT_FOUND) number = 0;

  memset(&hooks, 0, sizeof hooks);
  hooks.struct_size = sizeof hooks;
  if (descriptor.on_session_open(NULL, ssn, &hooks) != SCORIA_OK) return 1;

  if (api->resource_dim_count(ssn) <= SCORIA_DIM_PODS) return 1;
  text = api->resource_dim_name(ssn, SCORIA_DIM_CPU);
  text = api->resource_dim_name(ssn, SCORIA_DIM_MEMORY);

  job = api->job_at(ssn, 0);
  job_info.struct_size = sizeof job_info;
  if (api->job_info(job, &job_info) != SCORIA_OK) return 1;
  if (job_info.phase == (uint32_t)phase) return 0;
  queue = job_info.queue;
  queue_info.struct_size = sizeof queue_info;
  code = api->queue_info(queue, &queue_info);
  task = api->job_task_at(job, 0);
  task_info.struct_size = sizeof task_info;
  code = api->task_info(task, &task_info);
  if ((task_info.status & SCORIA_TASK_ANY) == (uint32_t)status) return 0;
  node = api->node_at(ssn, 0);
  node_info.struct_size = sizeof node_info;
  code = api->node_info(node, &node_info);
  taint.struct_size = sizeof taint;
  api->node_taint_at(node, 0, &taint);
  if (taint.effect == (uint32_t)effect) return 0;
  toleration.struct_size = sizeof toleration;
  api->task_toleration_at(task, 0, &toleration);
  if (toleration.op == (uint32_t)op) return 0;
  requirement.struct_size = sizeof requirement;
  api->task_affinity_requirement_at(task, (uint32_t)affinity, 0, 0, &requirement);
  if (requirement.value_count > 0 && requirement.values[0].len == 0) return 0;

  stmt = api->statement_open(ssn);
  code = api->statement_allocate(stmt, task, node);
  if (code != SCORIA_OK || kind != SCORIA_KIND_ACTION) {
    api->statement_discard(stmt);
    return 1;
  }
  return api->statement_commit(stmt) == SCORIA_OK ? 0 : 1;
}
