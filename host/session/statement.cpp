#include "session/statement.h"

#include <algorithm>
#include <iterator>

#include "session/task_status.h"

namespace scoria::session {

scoria_code Statement::place(Task& task, Node& node, uint32_t status, Op op) {
  if (task.status != SCORIA_TASK_PENDING || task.node >= 0) return SCORIA_INVALID_ARGUMENT;
  // Whatever an action asked: never a pod whose devices cannot be
  // allocated on the node. A pipelined pod, which waits for the evicted to
  // leave, may count the devices they release.
  if (!ssn_.devices().assume(task, node, status == SCORIA_TASK_PIPELINED))
    return SCORIA_UNSCHEDULABLE_AND_UNRESOLVABLE;
  ops_.push_back({op, &task, task.status, {}});
  ssn_.set_task_status(task, status);
  ssn_.node_add_task(node, task);
  ssn_.note_placed(task);
  ssn_.volumes().assume(task, node);
  ssn_.fire_allocate(task);
  return SCORIA_OK;
}

scoria_code Statement::allocate(Task& task, Node& node) {
  return place(task, node, SCORIA_TASK_ALLOCATED, Op::Allocate);
}

scoria_code Statement::pipeline(Task& task, Node& node) {
  return place(task, node, SCORIA_TASK_PIPELINED, Op::Pipeline);
}

scoria_code Statement::evict(Task& task, std::string reason) {
  if (task.node < 0 || !is_allocated_status(task.status)) return SCORIA_INVALID_ARGUMENT;
  // A scheduling.k8s.io PodGroup whose disruptionMode is all is disrupted
  // as a unit (KEP-5710): its other placed pods go with this one, in this
  // statement, so that a discard restores them all.
  const Job& job = ssn_.jobs()[task.job];
  if (job.group != nullptr && job.group->disrupt_whole) {
    for (uint32_t i : job.tasks) {
      Task& member = ssn_.tasks()[i];
      if (&member != &task && member.node >= 0 && is_allocated_status(member.status))
        evict_one(member, reason);
    }
  }
  evict_one(task, std::move(reason));
  return SCORIA_OK;
}

void Statement::evict_one(Task& task, std::string reason) {
  Node& node = ssn_.nodes()[static_cast<size_t>(task.node)];
  ops_.push_back({Op::Evict, &task, task.status, std::move(reason)});
  // A releasing task stays on its node until it is gone: move it between
  // the node's buckets rather than off the node.
  ssn_.node_remove_task(node, task);
  ssn_.set_task_status(task, SCORIA_TASK_RELEASING);
  ssn_.node_add_task(node, task);
  ssn_.devices().evict(task);
  ssn_.fire_deallocate(task);
}

void Statement::commit() {
  if (std::any_of(ops_.begin(), ops_.end(), [](const auto& op) { return op.op == Op::Evict; }))
    ssn_.count_eviction_transaction();
  for (auto& op : ops_) {
    switch (op.op) {
      case Op::Allocate:
        // Bindings are confirmed by the cluster source when the session
        // closes; until then the task is Binding, as in Volcano.
        ssn_.set_task_status(*op.task, SCORIA_TASK_BINDING);
        ssn_.record_bind(*op.task);
        break;
      case Op::Pipeline:
        break;  // pipelined tasks keep their reservation for this session only
      case Op::Evict:
        ssn_.record_eviction(*op.task, op.reason);
        break;
    }
  }
  ops_.clear();
}

void Statement::merge(Statement& other) {
  ops_.insert(ops_.end(), std::make_move_iterator(other.ops_.begin()),
              std::make_move_iterator(other.ops_.end()));
  other.ops_.clear();
}

void Statement::discard() {
  for (auto it = ops_.rbegin(); it != ops_.rend(); ++it) {
    Task& task = *it->task;
    ssn_.touch(ssn_.jobs()[task.job]);
    task.last_discarded = task.status;
    task.last_discarded_node = task.node;
    Node& node = ssn_.nodes()[static_cast<size_t>(task.node)];
    ssn_.node_remove_task(node, task);
    ssn_.set_task_status(task, it->previous_status);
    if (it->op == Op::Evict) {
      ssn_.devices().unevict(task);
      ssn_.node_add_task(node, task);
      ssn_.fire_allocate(task);
    } else {
      task.node = -1;
      ssn_.drop_bind_annotations(task);  // they belonged to the allocation undone
      ssn_.volumes().release(task);
      ssn_.devices().release(task);
      ssn_.fire_deallocate(task);
    }
  }
  ops_.clear();
}

}  // namespace scoria::session
