// Session::predicate_without (host_api.session_predicate_without, ABI 1.5):
// every predicate answered as if some tasks had left their nodes. The
// tasks are taken off their nodes for the call and put back exactly as
// they were, so that plugins read the hypothetical state through the
// usual accessors and need not know they are asked one.
#include <algorithm>
#include <cstddef>
#include <span>
#include <utility>
#include <vector>

#include "session/session.h"

namespace scoria::session {

namespace {

// What a node looked like before tasks were taken off it, to put back
// bit for bit (adding a request back is not exact in floating point, and
// the order of a node's tasks is visible to plugins).
struct SavedNode {
  Node* node;
  std::vector<uint32_t> tasks;
  std::vector<double> idle, used, releasing, pipelined;
};

// Takes the tasks off their nodes on construction, puts everything back on
// destruction (also if a hook throws through the host).
class TakenOff {
 public:
  TakenOff(Session& ssn, const Task& keep, std::span<Task* const> gone) {
    const size_t d = ssn.dims();
    for (Task* task : gone) {
      if (task == nullptr || task == &keep || task->ssn != &ssn || task->node < 0) continue;
      if (std::find(moved_.begin(), moved_.end(), task) != moved_.end()) continue;
      Node& node = ssn.nodes()[static_cast<size_t>(task->node)];
      if (std::find(node.tasks.begin(), node.tasks.end(), task->index) == node.tasks.end())
        continue;  // headed nowhere it holds anything (a finished pod)
      const auto saved = std::find_if(saved_.begin(), saved_.end(),
                                      [&](const SavedNode& s) { return s.node == &node; });
      if (saved == saved_.end()) {
        saved_.push_back({&node,
                          {node.tasks.begin(), node.tasks.end()},
                          {node.idle, node.idle + d},
                          {node.used, node.used + d},
                          {node.releasing, node.releasing + d},
                          {node.pipelined, node.pipelined + d}});
      }
      ssn.node_remove_task(node, *task);
      moved_.push_back(task);
      from_.push_back(task->node);
      task->node = -1;  // task_info then shows no node_name
    }
  }
  ~TakenOff() {
    for (size_t i = 0; i < moved_.size(); ++i) moved_[i]->node = from_[i];
    for (SavedNode& s : saved_) {
      s.node->tasks.assign(s.tasks.begin(), s.tasks.end());
      std::copy(s.idle.begin(), s.idle.end(), s.node->idle);
      std::copy(s.used.begin(), s.used.end(), s.node->used);
      std::copy(s.releasing.begin(), s.releasing.end(), s.node->releasing);
      std::copy(s.pipelined.begin(), s.pipelined.end(), s.node->pipelined);
    }
  }
  TakenOff(const TakenOff&) = delete;
  TakenOff& operator=(const TakenOff&) = delete;

 private:
  std::vector<Task*> moved_;
  std::vector<int32_t> from_;
  std::vector<SavedNode> saved_;
};

// The devices the gone tasks' claims hold are released for the call, as
// they will be once those pods are gone and their claims deallocated
// (tasks already evicted have released theirs); predicate() counts them.
class DevicesReleased {
 public:
  DevicesReleased(Session& ssn, const Task& keep, std::span<Task* const> gone)
      : devices_(ssn.devices()) {
    for (Task* task : gone) {
      if (task == nullptr || task == &keep || task->ssn != &ssn || task->node < 0 ||
          task->status == SCORIA_TASK_RELEASING)
        continue;
      if (std::find(evicted_.begin(), evicted_.end(), task) != evicted_.end()) continue;
      devices_.evict(*task);
      evicted_.push_back(task);
    }
  }
  ~DevicesReleased() {
    for (auto it = evicted_.rbegin(); it != evicted_.rend(); ++it) devices_.unevict(**it);
  }
  DevicesReleased(const DevicesReleased&) = delete;
  DevicesReleased& operator=(const DevicesReleased&) = delete;

 private:
  DeviceAllocator& devices_;
  std::vector<const Task*> evicted_;
};

}  // namespace

scoria_code Session::predicate_without(const Task& task, const Node& node,
                                       std::span<Task* const> gone, uint32_t* reason) {
  const DevicesReleased released(*this, task, gone);
  const TakenOff off(*this, task, gone);
  return predicate(task, node, reason);
}

}  // namespace scoria::session
