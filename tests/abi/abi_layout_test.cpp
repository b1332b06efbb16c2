// Pins ABI 1.x of sdk/include/scoria/scoria.h: the size and every field
// offset of each struct, every enum value and every macro a plugin compiles
// in. The numbers were produced once by compiling a program against the 1.0
// header and are written here as literals on purpose: plugins already built
// carry these numbers in their machine code, so this test must fail when
// anybody changes the header in a way those plugins would not survive.
//
// The rule: append only. When a field is appended (and the minor version
// bumped), add a line for its offset below and a row to kSizesByMinor; never
// edit an existing line. If an existing line fails, the header change is
// the bug, not this file.
#include <scoria/scoria.h>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <iterator>

// C's view of the sizes, from header_c_check.c (compiled as C99).
extern "C" size_t scoria_abi_c_sizeof(const char* type);

namespace {

#define EXPECT_ENUM(name, value) \
  EXPECT_EQ(static_cast<long long>(name), static_cast<long long>(value)) << #name

TEST(AbiLayout, VersionAndEntrySymbol) {
  EXPECT_EQ(SCORIA_ABI_VERSION_MAJOR, 1);
  EXPECT_STREQ(SCORIA_ENTRY_SYMBOL, "scoria_plugin_entry");
}

TEST(AbiLayout, MacroValues) {
  EXPECT_EQ(SCORIA_DIM_CPU, 0u);
  EXPECT_EQ(SCORIA_DIM_MEMORY, 1u);
  EXPECT_EQ(SCORIA_DIM_PODS, 2u);
  EXPECT_EQ(SCORIA_RESOURCE_EPSILON, 0.1);
  EXPECT_EQ(SCORIA_TASK_ANY, 0x3FFu);
  EXPECT_EQ(SCORIA_FLAG_SERIAL_HOOKS, 0x1u);
  // 1.1
  EXPECT_EQ(SCORIA_TASK_FEATURE_POD_AFFINITY, 0x1u);
  EXPECT_EQ(SCORIA_TASK_FEATURE_POD_ANTI_AFFINITY, 0x2u);
  EXPECT_EQ(SCORIA_TASK_FEATURE_PREFERRED_POD_AFFINITY, 0x4u);
  EXPECT_EQ(SCORIA_TASK_FEATURE_TOPOLOGY_SPREAD, 0x8u);
  EXPECT_EQ(SCORIA_TASK_FEATURE_HOST_PORTS, 0x10u);
  // 1.11
  EXPECT_EQ(SCORIA_JOBS_PHASE_PENDING, 0x1u);
  EXPECT_EQ(SCORIA_JOBS_WITH_PENDING_TASKS, 0x2u);
  EXPECT_EQ(SCORIA_JOBS_WITHOUT_QUEUE, 0x4u);
}

TEST(AbiLayout, CodeValues) {
  EXPECT_ENUM(SCORIA_OK, 0);
  EXPECT_ENUM(SCORIA_ERROR, 1);
  EXPECT_ENUM(SCORIA_UNSCHEDULABLE, 2);
  EXPECT_ENUM(SCORIA_UNSCHEDULABLE_AND_UNRESOLVABLE, 3);
  EXPECT_ENUM(SCORIA_SKIP, 4);
  EXPECT_ENUM(SCORIA_INVALID_ARGUMENT, 5);
  EXPECT_ENUM(SCORIA_NOT_FOUND, 6);
}

TEST(AbiLayout, VoteValues) {
  EXPECT_ENUM(SCORIA_VOTE_REJECT, -1);
  EXPECT_ENUM(SCORIA_VOTE_ABSTAIN, 0);
  EXPECT_ENUM(SCORIA_VOTE_PERMIT, 1);
}

TEST(AbiLayout, KindValues) {
  EXPECT_ENUM(SCORIA_KIND_ACTION, 1);
  EXPECT_ENUM(SCORIA_KIND_PLUGIN, 2);
}

TEST(AbiLayout, LogLevelValues) {
  EXPECT_ENUM(SCORIA_LOG_ERROR, -2);
  EXPECT_ENUM(SCORIA_LOG_WARNING, -1);
  EXPECT_ENUM(SCORIA_LOG_INFO, 0);
  EXPECT_ENUM(SCORIA_LOG_V1, 1);
  EXPECT_ENUM(SCORIA_LOG_V2, 2);
  EXPECT_ENUM(SCORIA_LOG_V3, 3);
  EXPECT_ENUM(SCORIA_LOG_V4, 4);
  EXPECT_ENUM(SCORIA_LOG_V5, 5);
}

TEST(AbiLayout, TaskStatusValues) {
  EXPECT_ENUM(SCORIA_TASK_PENDING, 0x1);
  EXPECT_ENUM(SCORIA_TASK_ALLOCATED, 0x2);
  EXPECT_ENUM(SCORIA_TASK_PIPELINED, 0x4);
  EXPECT_ENUM(SCORIA_TASK_BINDING, 0x8);
  EXPECT_ENUM(SCORIA_TASK_BOUND, 0x10);
  EXPECT_ENUM(SCORIA_TASK_RUNNING, 0x20);
  EXPECT_ENUM(SCORIA_TASK_RELEASING, 0x40);
  EXPECT_ENUM(SCORIA_TASK_SUCCEEDED, 0x80);
  EXPECT_ENUM(SCORIA_TASK_FAILED, 0x100);
  EXPECT_ENUM(SCORIA_TASK_UNKNOWN, 0x200);
}

TEST(AbiLayout, JobPhaseValues) {
  EXPECT_ENUM(SCORIA_PHASE_PENDING, 0);
  EXPECT_ENUM(SCORIA_PHASE_INQUEUE, 1);
  EXPECT_ENUM(SCORIA_PHASE_RUNNING, 2);
  EXPECT_ENUM(SCORIA_PHASE_UNKNOWN, 3);
  EXPECT_ENUM(SCORIA_PHASE_COMPLETED, 4);
}

TEST(AbiLayout, TaintEffectValues) {
  EXPECT_ENUM(SCORIA_TAINT_NO_SCHEDULE, 1);
  EXPECT_ENUM(SCORIA_TAINT_PREFER_NO_SCHEDULE, 2);
  EXPECT_ENUM(SCORIA_TAINT_NO_EXECUTE, 3);
}

TEST(AbiLayout, SelectorOpValues) {
  EXPECT_ENUM(SCORIA_OP_IN, 1);
  EXPECT_ENUM(SCORIA_OP_NOT_IN, 2);
  EXPECT_ENUM(SCORIA_OP_EXISTS, 3);
  EXPECT_ENUM(SCORIA_OP_DOES_NOT_EXIST, 4);
  EXPECT_ENUM(SCORIA_OP_GT, 5);
  EXPECT_ENUM(SCORIA_OP_LT, 6);
  EXPECT_ENUM(SCORIA_OP_EQUAL, 7);
}

TEST(AbiLayout, AffinityKindValues) {
  EXPECT_ENUM(SCORIA_AFFINITY_REQUIRED, 1);
  EXPECT_ENUM(SCORIA_AFFINITY_PREFERRED, 2);
}

TEST(AbiLayout, EvictionKindValues) {
  EXPECT_ENUM(SCORIA_EVICTION_GANG_PREEMPT, 1);
  EXPECT_ENUM(SCORIA_EVICTION_GANG_RECLAIM, 2);
  EXPECT_ENUM(SCORIA_EVICTION_TASK_PREEMPT, 3);
  EXPECT_ENUM(SCORIA_EVICTION_TASK_RECLAIM, 4);
}

// A plugin in C and a host in C++ must see the same structs.
TEST(AbiLayout, CAndCxxAgreeOnEverySize) {
#define EXPECT_SAME_SIZE(type) EXPECT_EQ(scoria_abi_c_sizeof(#type), sizeof(type)) << #type
  EXPECT_SAME_SIZE(scoria_str);
  EXPECT_SAME_SIZE(scoria_task_info);
  EXPECT_SAME_SIZE(scoria_job_info);
  EXPECT_SAME_SIZE(scoria_queue_info);
  EXPECT_SAME_SIZE(scoria_node_info);
  EXPECT_SAME_SIZE(scoria_taint);
  EXPECT_SAME_SIZE(scoria_toleration);
  EXPECT_SAME_SIZE(scoria_selector_requirement);
  EXPECT_SAME_SIZE(scoria_hooks);
  EXPECT_SAME_SIZE(scoria_host_api);
  EXPECT_SAME_SIZE(scoria_descriptor);
  EXPECT_SAME_SIZE(scoria_code);
  EXPECT_SAME_SIZE(scoria_vote);
  EXPECT_SAME_SIZE(scoria_kind);
  EXPECT_SAME_SIZE(scoria_log_level);
  EXPECT_SAME_SIZE(scoria_task_status);
  EXPECT_SAME_SIZE(scoria_job_phase);
  EXPECT_SAME_SIZE(scoria_taint_effect);
  EXPECT_SAME_SIZE(scoria_selector_op);
  EXPECT_SAME_SIZE(scoria_affinity_kind);
  EXPECT_SAME_SIZE(scoria_entry_fn);
  EXPECT_SAME_SIZE(scoria_arg_spec);
  EXPECT_SAME_SIZE(scoria_arg_type);
  EXPECT_SAME_SIZE(scoria_eviction_kind);
  EXPECT_SAME_SIZE(scoria_eviction_context);
  EXPECT_SAME_SIZE(scoria_hypernode_info);
  EXPECT_SAME_SIZE(scoria_network_topology);
  EXPECT_SAME_SIZE(scoria_sub_job_info);
  EXPECT_SAME_SIZE(scoria_sub_group_policy_info);
  EXPECT_SAME_SIZE(scoria_node_choice);
  EXPECT_SAME_SIZE(scoria_queue_job_sums);
  EXPECT_SAME_SIZE(scoria_device_demand);
#undef EXPECT_SAME_SIZE
}

#if defined(__x86_64__) && defined(__linux__)

// Sizes of the structs that begin with struct_size, one row per minor
// version (row i is ABI 1.i). Bumping the minor appends a row, repeating the
// size of every struct that did not grow.
struct SizesAtMinor {
  size_t task_info, job_info, queue_info, node_info, hooks, host_api, descriptor, taint, toleration,
      requirement;
};
constexpr SizesAtMinor kSizesByMinor[] = {
    {160, 176, 96, 80, 192, 624, 80, 40, 48, 48},   // 1.0
    {184, 176, 96, 80, 200, 656, 80, 40, 48, 48},   // 1.1
    {184, 176, 96, 80, 200, 680, 96, 40, 48, 48},   // 1.2
    {192, 176, 96, 80, 216, 720, 96, 40, 48, 48},   // 1.3
    {192, 176, 96, 80, 216, 752, 96, 40, 48, 48},   // 1.4
    {192, 176, 96, 80, 216, 760, 96, 40, 48, 48},   // 1.5
    {192, 176, 96, 80, 232, 832, 96, 40, 48, 48},   // 1.6
    {192, 176, 96, 80, 240, 832, 96, 40, 48, 48},   // 1.7
    {192, 176, 96, 80, 240, 840, 96, 40, 48, 48},   // 1.8
    {192, 176, 96, 80, 280, 960, 96, 40, 48, 48},   // 1.9
    {192, 184, 96, 80, 280, 968, 96, 40, 48, 48},   // 1.10
    {192, 184, 96, 80, 280, 984, 96, 40, 48, 48},   // 1.11
    {192, 184, 96, 80, 280, 992, 96, 40, 48, 48},   // 1.12
    {192, 184, 96, 80, 280, 992, 96, 40, 48, 48},   // 1.13
    {192, 184, 96, 80, 280, 1000, 96, 40, 48, 48},  // 1.14
    {192, 184, 96, 80, 280, 1008, 96, 40, 48, 48},  // 1.15
    {200, 192, 96, 88, 280, 1024, 96, 40, 48, 48},  // 1.16
};

TEST(AbiLayout, SizeTableHasARowForEveryMinor) {
  EXPECT_EQ(std::size(kSizesByMinor), SCORIA_ABI_VERSION_MINOR + 1u)
      << "append a row to kSizesByMinor for the new minor version";
}

TEST(AbiLayout, SizesOfGrowableStructs) {
  ASSERT_LT(size_t{SCORIA_ABI_VERSION_MINOR}, std::size(kSizesByMinor));
  const SizesAtMinor& s = kSizesByMinor[SCORIA_ABI_VERSION_MINOR];
  EXPECT_EQ(sizeof(scoria_task_info), s.task_info);
  EXPECT_EQ(sizeof(scoria_job_info), s.job_info);
  EXPECT_EQ(sizeof(scoria_queue_info), s.queue_info);
  EXPECT_EQ(sizeof(scoria_node_info), s.node_info);
  EXPECT_EQ(sizeof(scoria_hooks), s.hooks);
  EXPECT_EQ(sizeof(scoria_host_api), s.host_api);
  EXPECT_EQ(sizeof(scoria_descriptor), s.descriptor);
  EXPECT_EQ(sizeof(scoria_taint), s.taint);
  EXPECT_EQ(sizeof(scoria_toleration), s.toleration);
  EXPECT_EQ(sizeof(scoria_selector_requirement), s.requirement);
}

// scoria_str carries no struct_size: it is frozen for all of major 1.
TEST(AbiLayout, SizesOfFrozenStructs) { EXPECT_EQ(sizeof(scoria_str), 16u); }

TEST(AbiLayout, AlignmentOfEveryStruct) {
  EXPECT_EQ(alignof(scoria_str), 8u);
  EXPECT_EQ(alignof(scoria_task_info), 8u);
  EXPECT_EQ(alignof(scoria_job_info), 8u);
  EXPECT_EQ(alignof(scoria_queue_info), 8u);
  EXPECT_EQ(alignof(scoria_node_info), 8u);
  EXPECT_EQ(alignof(scoria_taint), 8u);
  EXPECT_EQ(alignof(scoria_toleration), 8u);
  EXPECT_EQ(alignof(scoria_selector_requirement), 8u);
  EXPECT_EQ(alignof(scoria_hooks), 8u);
  EXPECT_EQ(alignof(scoria_host_api), 8u);
  EXPECT_EQ(alignof(scoria_descriptor), 8u);
}

// Enums cross the boundary by value (return codes, votes): their size is
// part of the calling convention.
TEST(AbiLayout, SizesOfEnums) {
  EXPECT_EQ(sizeof(scoria_code), 4u);
  EXPECT_EQ(sizeof(scoria_vote), 4u);
  EXPECT_EQ(sizeof(scoria_kind), 4u);
  EXPECT_EQ(sizeof(scoria_log_level), 4u);
  EXPECT_EQ(sizeof(scoria_task_status), 4u);
  EXPECT_EQ(sizeof(scoria_job_phase), 4u);
  EXPECT_EQ(sizeof(scoria_taint_effect), 4u);
  EXPECT_EQ(sizeof(scoria_selector_op), 4u);
  EXPECT_EQ(sizeof(scoria_affinity_kind), 4u);
}

#define EXPECT_OFFSET(type, field, value) \
  EXPECT_EQ(offsetof(type, field), size_t{value}) << #type "." #field

TEST(AbiLayout, OffsetsOfStr) {
  EXPECT_OFFSET(scoria_str, data, 0);
  EXPECT_OFFSET(scoria_str, len, 8);
}

TEST(AbiLayout, OffsetsOfTaskInfo) {
  EXPECT_OFFSET(scoria_task_info, struct_size, 0);
  EXPECT_OFFSET(scoria_task_info, status, 4);
  EXPECT_OFFSET(scoria_task_info, namespace_, 8);
  EXPECT_OFFSET(scoria_task_info, name, 24);
  EXPECT_OFFSET(scoria_task_info, uid, 40);
  EXPECT_OFFSET(scoria_task_info, node_name, 56);
  EXPECT_OFFSET(scoria_task_info, role, 72);
  EXPECT_OFFSET(scoria_task_info, priority_class, 88);
  EXPECT_OFFSET(scoria_task_info, priority, 104);
  EXPECT_OFFSET(scoria_task_info, preemptable, 108);
  EXPECT_OFFSET(scoria_task_info, best_effort, 112);
  EXPECT_OFFSET(scoria_task_info, preempt_never, 116);
  EXPECT_OFFSET(scoria_task_info, resreq, 120);
  EXPECT_OFFSET(scoria_task_info, init_resreq, 128);
  EXPECT_OFFSET(scoria_task_info, job, 136);
  EXPECT_OFFSET(scoria_task_info, creation_ms, 144);
  EXPECT_OFFSET(scoria_task_info, index, 152);
  EXPECT_OFFSET(scoria_task_info, reserved0, 156);
  // 1.1
  EXPECT_OFFSET(scoria_task_info, features, 160);
  EXPECT_OFFSET(scoria_task_info, scheduling_gated, 164);
  EXPECT_OFFSET(scoria_task_info, nominated_node, 168);
  // 1.3
  EXPECT_OFFSET(scoria_task_info, scheduled_ms, 184);
  // 1.16
  EXPECT_OFFSET(scoria_task_info, queue_gate, 192);
  EXPECT_OFFSET(scoria_task_info, reserved1, 196);
}

TEST(AbiLayout, OffsetsOfJobInfo) {
  EXPECT_OFFSET(scoria_job_info, struct_size, 0);
  EXPECT_OFFSET(scoria_job_info, phase, 4);
  EXPECT_OFFSET(scoria_job_info, namespace_, 8);
  EXPECT_OFFSET(scoria_job_info, name, 24);
  EXPECT_OFFSET(scoria_job_info, uid, 40);
  EXPECT_OFFSET(scoria_job_info, queue_name, 56);
  EXPECT_OFFSET(scoria_job_info, queue, 72);
  EXPECT_OFFSET(scoria_job_info, min_available, 80);
  EXPECT_OFFSET(scoria_job_info, priority, 84);
  EXPECT_OFFSET(scoria_job_info, preemptable, 88);
  EXPECT_OFFSET(scoria_job_info, task_count, 92);
  EXPECT_OFFSET(scoria_job_info, min_resources, 96);
  EXPECT_OFFSET(scoria_job_info, has_min_resources, 104);
  EXPECT_OFFSET(scoria_job_info, index, 108);
  EXPECT_OFFSET(scoria_job_info, creation_ms, 112);
  EXPECT_OFFSET(scoria_job_info, status_count, 120);
  EXPECT_OFFSET(scoria_job_info, allocated, 160);
  EXPECT_OFFSET(scoria_job_info, total_request, 168);
  // 1.10
  EXPECT_OFFSET(scoria_job_info, pending_best_effort, 176);
  EXPECT_OFFSET(scoria_job_info, reserved0, 180);
  // 1.16
  EXPECT_OFFSET(scoria_job_info, disrupt_whole, 184);
  EXPECT_OFFSET(scoria_job_info, reserved1, 188);
}

TEST(AbiLayout, OffsetsOfQueueInfo) {
  EXPECT_OFFSET(scoria_queue_info, struct_size, 0);
  EXPECT_OFFSET(scoria_queue_info, index, 4);
  EXPECT_OFFSET(scoria_queue_info, name, 8);
  EXPECT_OFFSET(scoria_queue_info, parent, 24);
  EXPECT_OFFSET(scoria_queue_info, weight, 40);
  EXPECT_OFFSET(scoria_queue_info, priority, 44);
  EXPECT_OFFSET(scoria_queue_info, reclaimable, 48);
  EXPECT_OFFSET(scoria_queue_info, open, 52);
  EXPECT_OFFSET(scoria_queue_info, capability, 56);
  EXPECT_OFFSET(scoria_queue_info, deserved, 64);
  EXPECT_OFFSET(scoria_queue_info, guarantee, 72);
  EXPECT_OFFSET(scoria_queue_info, allocated, 80);
  EXPECT_OFFSET(scoria_queue_info, creation_ms, 88);
}

TEST(AbiLayout, OffsetsOfNodeInfo) {
  EXPECT_OFFSET(scoria_node_info, struct_size, 0);
  EXPECT_OFFSET(scoria_node_info, index, 4);
  EXPECT_OFFSET(scoria_node_info, name, 8);
  EXPECT_OFFSET(scoria_node_info, ready, 24);
  EXPECT_OFFSET(scoria_node_info, unschedulable, 28);
  EXPECT_OFFSET(scoria_node_info, allocatable, 32);
  EXPECT_OFFSET(scoria_node_info, idle, 40);
  EXPECT_OFFSET(scoria_node_info, used, 48);
  EXPECT_OFFSET(scoria_node_info, releasing, 56);
  EXPECT_OFFSET(scoria_node_info, pipelined, 64);
  EXPECT_OFFSET(scoria_node_info, task_count, 72);
  EXPECT_OFFSET(scoria_node_info, reserved0, 76);
  // 1.16
  EXPECT_OFFSET(scoria_node_info, outside_soft_shard, 80);
  EXPECT_OFFSET(scoria_node_info, reserved1, 84);
}

TEST(AbiLayout, OffsetsOfTaint) {
  EXPECT_OFFSET(scoria_taint, struct_size, 0);
  EXPECT_OFFSET(scoria_taint, effect, 4);
  EXPECT_OFFSET(scoria_taint, key, 8);
  EXPECT_OFFSET(scoria_taint, value, 24);
}

TEST(AbiLayout, OffsetsOfToleration) {
  EXPECT_OFFSET(scoria_toleration, struct_size, 0);
  EXPECT_OFFSET(scoria_toleration, op, 4);
  EXPECT_OFFSET(scoria_toleration, effect, 8);
  EXPECT_OFFSET(scoria_toleration, reserved0, 12);
  EXPECT_OFFSET(scoria_toleration, key, 16);
  EXPECT_OFFSET(scoria_toleration, value, 32);
}

TEST(AbiLayout, OffsetsOfSelectorRequirement) {
  EXPECT_OFFSET(scoria_selector_requirement, struct_size, 0);
  EXPECT_OFFSET(scoria_selector_requirement, op, 4);
  EXPECT_OFFSET(scoria_selector_requirement, is_field, 8);
  EXPECT_OFFSET(scoria_selector_requirement, reserved0, 12);
  EXPECT_OFFSET(scoria_selector_requirement, key, 16);
  EXPECT_OFFSET(scoria_selector_requirement, values, 32);
  EXPECT_OFFSET(scoria_selector_requirement, value_count, 40);
}

TEST(AbiLayout, OffsetsOfHooks) {
  EXPECT_OFFSET(scoria_hooks, struct_size, 0);
  EXPECT_OFFSET(scoria_hooks, reserved0, 4);
  EXPECT_OFFSET(scoria_hooks, user_data, 8);
  EXPECT_OFFSET(scoria_hooks, on_job_order, 16);
  EXPECT_OFFSET(scoria_hooks, on_queue_order, 24);
  EXPECT_OFFSET(scoria_hooks, on_task_order, 32);
  EXPECT_OFFSET(scoria_hooks, on_victim_queue_order, 40);
  EXPECT_OFFSET(scoria_hooks, on_predicate, 48);
  EXPECT_OFFSET(scoria_hooks, on_predicate_batch, 56);
  EXPECT_OFFSET(scoria_hooks, on_node_order, 64);
  EXPECT_OFFSET(scoria_hooks, on_node_order_batch, 72);
  EXPECT_OFFSET(scoria_hooks, on_best_node, 80);
  EXPECT_OFFSET(scoria_hooks, on_job_valid, 88);
  EXPECT_OFFSET(scoria_hooks, on_job_ready, 96);
  EXPECT_OFFSET(scoria_hooks, on_job_pipelined, 104);
  EXPECT_OFFSET(scoria_hooks, on_job_enqueueable, 112);
  EXPECT_OFFSET(scoria_hooks, on_job_enqueued, 120);
  EXPECT_OFFSET(scoria_hooks, on_job_starving, 128);
  EXPECT_OFFSET(scoria_hooks, on_overused, 136);
  EXPECT_OFFSET(scoria_hooks, on_allocatable, 144);
  EXPECT_OFFSET(scoria_hooks, on_preemptable, 152);
  EXPECT_OFFSET(scoria_hooks, on_reclaimable, 160);
  EXPECT_OFFSET(scoria_hooks, on_victim_tasks, 168);
  EXPECT_OFFSET(scoria_hooks, on_allocate, 176);
  EXPECT_OFFSET(scoria_hooks, on_deallocate, 184);
  // 1.1
  EXPECT_OFFSET(scoria_hooks, on_preemptive, 192);
  // 1.3
  EXPECT_OFFSET(scoria_hooks, on_evictable, 200);
  EXPECT_OFFSET(scoria_hooks, on_preemptive_tasks, 208);
  // 1.6
  EXPECT_OFFSET(scoria_hooks, on_hypernode_order, 216);
  EXPECT_OFFSET(scoria_hooks, on_hypernode_gradient, 224);
  EXPECT_OFFSET(scoria_hooks, on_cache_policy, 232);
  // 1.9
  EXPECT_OFFSET(scoria_hooks, on_sub_job_ready, 240);
  EXPECT_OFFSET(scoria_hooks, on_sub_job_pipelined, 248);
  EXPECT_OFFSET(scoria_hooks, on_sub_job_order, 256);
  EXPECT_OFFSET(scoria_hooks, on_sub_job_hypernode_order, 264);
  EXPECT_OFFSET(scoria_hooks, on_sub_job_hypernode_gradient, 272);
}

TEST(AbiLayout, OffsetsOfHostApi) {
  EXPECT_OFFSET(scoria_host_api, struct_size, 0);
  EXPECT_OFFSET(scoria_host_api, abi_major, 4);
  EXPECT_OFFSET(scoria_host_api, abi_minor, 6);
  EXPECT_OFFSET(scoria_host_api, log, 8);
  EXPECT_OFFSET(scoria_host_api, log_enabled, 16);
  EXPECT_OFFSET(scoria_host_api, report_error, 24);
  EXPECT_OFFSET(scoria_host_api, args_get_int, 32);
  EXPECT_OFFSET(scoria_host_api, args_get_float, 40);
  EXPECT_OFFSET(scoria_host_api, args_get_bool, 48);
  EXPECT_OFFSET(scoria_host_api, args_get_string, 56);
  EXPECT_OFFSET(scoria_host_api, args_count, 64);
  EXPECT_OFFSET(scoria_host_api, args_key_at, 72);
  EXPECT_OFFSET(scoria_host_api, reason_intern, 80);
  EXPECT_OFFSET(scoria_host_api, reason_text, 88);
  EXPECT_OFFSET(scoria_host_api, resource_dim_count, 96);
  EXPECT_OFFSET(scoria_host_api, resource_dim_name, 104);
  EXPECT_OFFSET(scoria_host_api, resource_dim_find, 112);
  EXPECT_OFFSET(scoria_host_api, queue_count, 120);
  EXPECT_OFFSET(scoria_host_api, queue_at, 128);
  EXPECT_OFFSET(scoria_host_api, job_count, 136);
  EXPECT_OFFSET(scoria_host_api, job_at, 144);
  EXPECT_OFFSET(scoria_host_api, node_count, 152);
  EXPECT_OFFSET(scoria_host_api, node_at, 160);
  EXPECT_OFFSET(scoria_host_api, node_find, 168);
  EXPECT_OFFSET(scoria_host_api, queue_find, 176);
  EXPECT_OFFSET(scoria_host_api, job_task_count, 184);
  EXPECT_OFFSET(scoria_host_api, job_task_at, 192);
  EXPECT_OFFSET(scoria_host_api, node_task_count, 200);
  EXPECT_OFFSET(scoria_host_api, node_task_at, 208);
  EXPECT_OFFSET(scoria_host_api, task_info, 216);
  EXPECT_OFFSET(scoria_host_api, job_info, 224);
  EXPECT_OFFSET(scoria_host_api, queue_info, 232);
  EXPECT_OFFSET(scoria_host_api, node_info, 240);
  EXPECT_OFFSET(scoria_host_api, job_session, 248);
  EXPECT_OFFSET(scoria_host_api, node_label, 256);
  EXPECT_OFFSET(scoria_host_api, node_label_count, 264);
  EXPECT_OFFSET(scoria_host_api, node_label_at, 272);
  EXPECT_OFFSET(scoria_host_api, node_taint_count, 280);
  EXPECT_OFFSET(scoria_host_api, node_taint_at, 288);
  EXPECT_OFFSET(scoria_host_api, task_label, 296);
  EXPECT_OFFSET(scoria_host_api, task_annotation, 304);
  EXPECT_OFFSET(scoria_host_api, job_annotation, 312);
  EXPECT_OFFSET(scoria_host_api, task_node_selector_count, 320);
  EXPECT_OFFSET(scoria_host_api, task_node_selector_at, 328);
  EXPECT_OFFSET(scoria_host_api, task_toleration_count, 336);
  EXPECT_OFFSET(scoria_host_api, task_toleration_at, 344);
  EXPECT_OFFSET(scoria_host_api, task_affinity_term_count, 352);
  EXPECT_OFFSET(scoria_host_api, task_affinity_term_weight, 360);
  EXPECT_OFFSET(scoria_host_api, task_affinity_requirement_count, 368);
  EXPECT_OFFSET(scoria_host_api, task_affinity_requirement_at, 376);
  EXPECT_OFFSET(scoria_host_api, task_object_json, 384);
  EXPECT_OFFSET(scoria_host_api, session_job_less, 392);
  EXPECT_OFFSET(scoria_host_api, session_queue_less, 400);
  EXPECT_OFFSET(scoria_host_api, session_task_less, 408);
  EXPECT_OFFSET(scoria_host_api, session_victim_queue_less, 416);
  EXPECT_OFFSET(scoria_host_api, session_predicate_nodes, 424);
  EXPECT_OFFSET(scoria_host_api, session_predicate, 432);
  EXPECT_OFFSET(scoria_host_api, session_node_scores, 440);
  EXPECT_OFFSET(scoria_host_api, session_best_node, 448);
  EXPECT_OFFSET(scoria_host_api, session_job_valid, 456);
  EXPECT_OFFSET(scoria_host_api, session_job_ready, 464);
  EXPECT_OFFSET(scoria_host_api, session_job_pipelined, 472);
  EXPECT_OFFSET(scoria_host_api, session_job_enqueueable, 480);
  EXPECT_OFFSET(scoria_host_api, session_job_enqueued, 488);
  EXPECT_OFFSET(scoria_host_api, session_job_starving, 496);
  EXPECT_OFFSET(scoria_host_api, session_overused, 504);
  EXPECT_OFFSET(scoria_host_api, session_allocatable, 512);
  EXPECT_OFFSET(scoria_host_api, session_preemptable, 520);
  EXPECT_OFFSET(scoria_host_api, session_reclaimable, 528);
  EXPECT_OFFSET(scoria_host_api, session_victim_tasks, 536);
  EXPECT_OFFSET(scoria_host_api, session_job_set_phase, 544);
  EXPECT_OFFSET(scoria_host_api, session_job_set_fit_error, 552);
  EXPECT_OFFSET(scoria_host_api, session_action_enabled, 560);
  EXPECT_OFFSET(scoria_host_api, statement_open, 568);
  EXPECT_OFFSET(scoria_host_api, statement_allocate, 576);
  EXPECT_OFFSET(scoria_host_api, statement_pipeline, 584);
  EXPECT_OFFSET(scoria_host_api, statement_evict, 592);
  EXPECT_OFFSET(scoria_host_api, statement_commit, 600);
  EXPECT_OFFSET(scoria_host_api, statement_discard, 608);
  EXPECT_OFFSET(scoria_host_api, statement_size, 616);
  // 1.1
  EXPECT_OFFSET(scoria_host_api, queue_annotation, 624);
  EXPECT_OFFSET(scoria_host_api, session_queue_set_deserved, 632);
  EXPECT_OFFSET(scoria_host_api, session_preemptive, 640);
  EXPECT_OFFSET(scoria_host_api, statement_merge, 648);
  // 1.2
  EXPECT_OFFSET(scoria_host_api, namespace_label_count, 656);
  EXPECT_OFFSET(scoria_host_api, namespace_label_at, 664);
  EXPECT_OFFSET(scoria_host_api, namespace_label, 672);
  // 1.3
  EXPECT_OFFSET(scoria_host_api, session_now_ms, 680);
  EXPECT_OFFSET(scoria_host_api, node_annotation, 688);
  EXPECT_OFFSET(scoria_host_api, session_evictable, 696);
  EXPECT_OFFSET(scoria_host_api, session_preemptive_tasks, 704);
  EXPECT_OFFSET(scoria_host_api, queue_object_json, 712);
  // 1.4
  EXPECT_OFFSET(scoria_host_api, session_object_count, 720);
  EXPECT_OFFSET(scoria_host_api, session_object_json, 728);
  EXPECT_OFFSET(scoria_host_api, job_min_task_member_count, 736);
  EXPECT_OFFSET(scoria_host_api, job_min_task_member_at, 744);
  // 1.5
  EXPECT_OFFSET(scoria_host_api, session_predicate_without, 752);
  // 1.6
  EXPECT_OFFSET(scoria_host_api, task_set_bind_annotation, 760);
  EXPECT_OFFSET(scoria_host_api, task_bind_annotation, 768);
  EXPECT_OFFSET(scoria_host_api, hypernode_count, 776);
  EXPECT_OFFSET(scoria_host_api, hypernode_info, 784);
  EXPECT_OFFSET(scoria_host_api, hypernode_find, 792);
  EXPECT_OFFSET(scoria_host_api, job_network_topology, 800);
  EXPECT_OFFSET(scoria_host_api, session_job_set_allocated_hypernode, 808);
  EXPECT_OFFSET(scoria_host_api, session_hypernode_scores, 816);
  EXPECT_OFFSET(scoria_host_api, session_hypernode_gradient, 824);
  // 1.8
  EXPECT_OFFSET(scoria_host_api, session_tasks_with_features, 832);
  // 1.9
  EXPECT_OFFSET(scoria_host_api, job_sub_job_count, 840);
  EXPECT_OFFSET(scoria_host_api, job_sub_job_at, 848);
  EXPECT_OFFSET(scoria_host_api, task_sub_job, 856);
  EXPECT_OFFSET(scoria_host_api, sub_job_info, 864);
  EXPECT_OFFSET(scoria_host_api, sub_job_task_count, 872);
  EXPECT_OFFSET(scoria_host_api, sub_job_task_at, 880);
  EXPECT_OFFSET(scoria_host_api, job_sub_group_policy_count, 888);
  EXPECT_OFFSET(scoria_host_api, job_sub_group_policy_at, 896);
  EXPECT_OFFSET(scoria_host_api, sub_job_network_topology, 904);
  EXPECT_OFFSET(scoria_host_api, session_sub_job_set_allocated_hypernode, 912);
  EXPECT_OFFSET(scoria_host_api, session_sub_job_ready, 920);
  EXPECT_OFFSET(scoria_host_api, session_sub_job_pipelined, 928);
  EXPECT_OFFSET(scoria_host_api, session_sub_job_less, 936);
  EXPECT_OFFSET(scoria_host_api, session_sub_job_hypernode_scores, 944);
  EXPECT_OFFSET(scoria_host_api, session_sub_job_hypernode_gradient, 952);
  // 1.10
  EXPECT_OFFSET(scoria_host_api, session_select_node, 960);
  // 1.11
  EXPECT_OFFSET(scoria_host_api, session_queue_job_sums, 968);
  EXPECT_OFFSET(scoria_host_api, session_jobs_where, 976);
  // 1.12
  EXPECT_OFFSET(scoria_host_api, session_volume_check, 984);
  // 1.14
  EXPECT_OFFSET(scoria_host_api, session_task_device_demands, 992);
  // 1.15
  EXPECT_OFFSET(scoria_host_api, session_queue_set_real_capability, 1000);
  // 1.16
  EXPECT_OFFSET(scoria_host_api, session_lift_queue_gate, 1008);
  EXPECT_OFFSET(scoria_host_api, session_node_totals, 1016);
}

// Born in 1.6: their whole layouts are pinned.
TEST(AbiLayout, HyperNodeInfoLayout) {
  EXPECT_EQ(sizeof(scoria_hypernode_info), 64u);
  EXPECT_OFFSET(scoria_hypernode_info, struct_size, 0);
  EXPECT_OFFSET(scoria_hypernode_info, index, 4);
  EXPECT_OFFSET(scoria_hypernode_info, name, 8);
  EXPECT_OFFSET(scoria_hypernode_info, tier, 24);
  EXPECT_OFFSET(scoria_hypernode_info, parent, 28);
  EXPECT_OFFSET(scoria_hypernode_info, children, 32);
  EXPECT_OFFSET(scoria_hypernode_info, child_count, 40);
  EXPECT_OFFSET(scoria_hypernode_info, nodes, 48);
  EXPECT_OFFSET(scoria_hypernode_info, node_count, 56);
}

TEST(AbiLayout, NetworkTopologyLayout) {
  EXPECT_EQ(sizeof(scoria_network_topology), 24u);
  EXPECT_OFFSET(scoria_network_topology, struct_size, 0);
  EXPECT_OFFSET(scoria_network_topology, mode, 4);
  EXPECT_OFFSET(scoria_network_topology, declared_mode, 8);
  EXPECT_OFFSET(scoria_network_topology, highest_tier_allowed, 12);
  EXPECT_OFFSET(scoria_network_topology, has_highest_tier_allowed, 16);
  EXPECT_OFFSET(scoria_network_topology, allocated_hypernode, 20);
}

// Born in 1.9: their whole layouts are pinned (scoria_sub_job_info grew by
// pending_best_effort in 1.10, from 112 bytes).
TEST(AbiLayout, SubJobInfoLayout) {
  EXPECT_EQ(sizeof(scoria_sub_job_info), 120u);
  EXPECT_OFFSET(scoria_sub_job_info, struct_size, 0);
  EXPECT_OFFSET(scoria_sub_job_info, index, 4);
  EXPECT_OFFSET(scoria_sub_job_info, job, 8);
  EXPECT_OFFSET(scoria_sub_job_info, uid, 16);
  EXPECT_OFFSET(scoria_sub_job_info, gid, 32);
  EXPECT_OFFSET(scoria_sub_job_info, policy, 48);
  EXPECT_OFFSET(scoria_sub_job_info, min_available, 52);
  EXPECT_OFFSET(scoria_sub_job_info, match_index, 56);
  EXPECT_OFFSET(scoria_sub_job_info, priority, 64);
  EXPECT_OFFSET(scoria_sub_job_info, task_count, 68);
  EXPECT_OFFSET(scoria_sub_job_info, status_count, 72);
  EXPECT_OFFSET(scoria_sub_job_info, pending_best_effort, 112);
  EXPECT_OFFSET(scoria_sub_job_info, reserved0, 116);
  EXPECT_EQ(SCORIA_NO_SUB_GROUP_POLICY, 0xFFFFFFFFu);
}

TEST(AbiLayout, SubGroupPolicyInfoLayout) {
  EXPECT_EQ(sizeof(scoria_sub_group_policy_info), 32u);
  EXPECT_OFFSET(scoria_sub_group_policy_info, struct_size, 0);
  EXPECT_OFFSET(scoria_sub_group_policy_info, sub_group_size, 4);
  EXPECT_OFFSET(scoria_sub_group_policy_info, name, 8);
  EXPECT_OFFSET(scoria_sub_group_policy_info, min_sub_groups, 24);
  EXPECT_OFFSET(scoria_sub_group_policy_info, reserved0, 28);
}

// Born in 1.10: its whole layout is pinned.
TEST(AbiLayout, NodeChoiceLayout) {
  EXPECT_EQ(sizeof(scoria_node_choice), 24u);
  EXPECT_OFFSET(scoria_node_choice, struct_size, 0);
  EXPECT_OFFSET(scoria_node_choice, fit_count, 4);
  EXPECT_OFFSET(scoria_node_choice, node, 8);
  EXPECT_OFFSET(scoria_node_choice, idle, 16);
  EXPECT_OFFSET(scoria_node_choice, reserved0, 20);
}

// Born in 1.11: its whole layout is pinned.
TEST(AbiLayout, QueueJobSumsLayout) {
  EXPECT_EQ(sizeof(scoria_queue_job_sums), 56u);
  EXPECT_OFFSET(scoria_queue_job_sums, struct_size, 0);
  EXPECT_OFFSET(scoria_queue_job_sums, jobs, 4);
  EXPECT_OFFSET(scoria_queue_job_sums, allocated, 8);
  EXPECT_OFFSET(scoria_queue_job_sums, request, 16);
  EXPECT_OFFSET(scoria_queue_job_sums, elastic, 24);
  EXPECT_OFFSET(scoria_queue_job_sums, inqueue_minimum, 32);
  EXPECT_OFFSET(scoria_queue_job_sums, inqueue_unallocated, 40);
  EXPECT_OFFSET(scoria_queue_job_sums, running_unallocated, 48);
}

// Born in 1.14: its whole layout is pinned.
TEST(AbiLayout, DeviceDemandLayout) {
  EXPECT_EQ(sizeof(scoria_device_demand), 64u);
  EXPECT_OFFSET(scoria_device_demand, struct_size, 0);
  EXPECT_OFFSET(scoria_device_demand, claim, 8);
  EXPECT_OFFSET(scoria_device_demand, device_class, 24);
  EXPECT_OFFSET(scoria_device_demand, dimension, 40);
  EXPECT_OFFSET(scoria_device_demand, amount, 56);
  EXPECT_EQ(SCORIA_TASK_FEATURE_DEVICE_CLAIMS, 0x40u);
}

// Born in 1.3: its whole layout is pinned.
TEST(AbiLayout, EvictionContextLayout) {
  EXPECT_EQ(sizeof(scoria_eviction_context), 40u);
  EXPECT_OFFSET(scoria_eviction_context, struct_size, 0);
  EXPECT_OFFSET(scoria_eviction_context, kind, 4);
  EXPECT_OFFSET(scoria_eviction_context, job, 8);
  EXPECT_OFFSET(scoria_eviction_context, task, 16);
  EXPECT_OFFSET(scoria_eviction_context, domain, 24);
}

TEST(AbiLayout, OffsetsOfDescriptor) {
  EXPECT_OFFSET(scoria_descriptor, struct_size, 0);
  EXPECT_OFFSET(scoria_descriptor, abi_major, 4);
  EXPECT_OFFSET(scoria_descriptor, abi_minor, 6);
  EXPECT_OFFSET(scoria_descriptor, name, 8);
  EXPECT_OFFSET(scoria_descriptor, kind, 16);
  EXPECT_OFFSET(scoria_descriptor, flags, 20);
  EXPECT_OFFSET(scoria_descriptor, version, 24);
  EXPECT_OFFSET(scoria_descriptor, description, 32);
  EXPECT_OFFSET(scoria_descriptor, on_create, 40);
  EXPECT_OFFSET(scoria_descriptor, on_destroy, 48);
  EXPECT_OFFSET(scoria_descriptor, on_session_open, 56);
  EXPECT_OFFSET(scoria_descriptor, on_session_close, 64);
  EXPECT_OFFSET(scoria_descriptor, on_execute, 72);
  // 1.2
  EXPECT_OFFSET(scoria_descriptor, args, 80);
  EXPECT_OFFSET(scoria_descriptor, arg_count, 88);
}

// Born in 1.2: its whole layout is pinned.
TEST(AbiLayout, ArgSpecLayout) {
  EXPECT_EQ(sizeof(scoria_arg_spec), 64u);
  EXPECT_EQ(alignof(scoria_arg_spec), 8u);
  EXPECT_OFFSET(scoria_arg_spec, struct_size, 0);
  EXPECT_OFFSET(scoria_arg_spec, type, 4);
  EXPECT_OFFSET(scoria_arg_spec, name, 8);
  EXPECT_OFFSET(scoria_arg_spec, default_value, 16);
  EXPECT_OFFSET(scoria_arg_spec, help, 24);
  EXPECT_OFFSET(scoria_arg_spec, allowed, 32);
  EXPECT_OFFSET(scoria_arg_spec, bounds, 40);
  EXPECT_OFFSET(scoria_arg_spec, reserved0, 44);
  EXPECT_OFFSET(scoria_arg_spec, min, 48);
  EXPECT_OFFSET(scoria_arg_spec, max, 56);
}

TEST(AbiLayout, ArgTypeValues) {
  EXPECT_ENUM(SCORIA_ARG_BOOL, 1);
  EXPECT_ENUM(SCORIA_ARG_INT, 2);
  EXPECT_ENUM(SCORIA_ARG_FLOAT, 3);
  EXPECT_ENUM(SCORIA_ARG_STRING, 4);
  EXPECT_ENUM(SCORIA_ARG_QUANTITY, 5);
  EXPECT_ENUM(SCORIA_ARG_DURATION, 6);
  EXPECT_ENUM(SCORIA_ARG_LIST, 7);
  EXPECT_ENUM(SCORIA_ARG_MAP, 8);
  EXPECT_EQ(SCORIA_ARG_HAS_MIN, 0x1u);
  EXPECT_EQ(SCORIA_ARG_HAS_MAX, 0x2u);
  EXPECT_EQ(SCORIA_FLAG_DECLARES_ARGS, 0x2u);
}
#else

TEST(AbiLayout, OffsetsArePinnedForX8664LinuxOnly) {
  GTEST_SKIP() << "the pinned sizes and offsets are those of x86_64 Linux";
}

#endif

}  // namespace
