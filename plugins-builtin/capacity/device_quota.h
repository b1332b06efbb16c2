// capacity's queue quota by device class (Volcano HEAD's capacity with
// capacity.DynamicResourceAllocationEnable): a queue's spec.capability,
// spec.deserved and spec.guarantee.resource may name
//
//   deviceclass/CLASS          how many devices of that DeviceClass, and
//   DIM.deviceclass/CLASS      how much of a consumable capacity DIM of them
//                              (counted with capacity.DRAConsumableCapacityEnable);
//
// the queue is charged for what its tasks' ResourceClaims ask of each class
// (the host's session_task_device_demands: `exactly` requests with
// ExactCount; firstAvailable and All are not counted, as Volcano skips
// them), a claim shared by several of its tasks once. A task is allocatable
// while allocated + its claims not yet charged stay within the capability
// of each class the capability names (a count of 0 sets no limit); a job is
// enqueueable while allocated + inqueue + its minimum stays within it, its
// minimum being what its first minMember tasks ask (by namespace, name,
// uid), or each role's first task times the role's minTaskMember. Only the
// capability limits; deserved and guarantee are read, as Volcano reads
// them, and weigh nothing.
#ifndef SCORIA_CAPACITY_DEVICE_QUOTA_H
#define SCORIA_CAPACITY_DEVICE_QUOTA_H

#include <scoria/scoria.h>

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace capacity {

/// What is asked of, or allowed for, one device class.
struct DeviceAmount {
  double count = 0;
  std::map<std::string, double, std::less<>> capacity;  // by dimension
  void add(const DeviceAmount& other, double sign);
};
/// By device class.
using DeviceAmounts = std::map<std::string, DeviceAmount, std::less<>>;

class DeviceQuota {
 public:
  /// A new session: reads each queue's spec (queue index order). Returns
  /// whether any queue sets a device-class quota; with none, every other
  /// call is a no-op.
  bool open(scoria_session* ssn, bool consumable);
  bool active() const { return active_; }

  /// The tasks with claims that hold their nodes as the session opens
  /// (Allocated, Binding, Bound, Running): the caller charges their queues.
  std::vector<const scoria_task*> holding() const;

  /// Whether `task` fits queue `q`'s device-class capability.
  bool allocatable(size_t q, const scoria_task* task) const;
  /// Whether `job`'s minimum fits queue `q`'s capability with what the
  /// queue holds and has admitted.
  bool admits(size_t q, const scoria_job* job) const;
  /// `job` was admitted to queue `q` (call for each ancestor too).
  void enqueued(size_t q, const scoria_job* job);
  /// `task` was placed in (sign 1) or taken from (sign -1) queue `q`.
  void allocate(size_t q, const scoria_task* task, int sign);

 private:
  struct Queue {
    DeviceAmounts capability, deserved, guarantee;
    DeviceAmounts allocated, inqueue;
    std::map<std::string, int, std::less<>> claim_refs;  // claims charged
  };
  // What `task` asks, by claim (claim key, then class).
  std::map<std::string, DeviceAmounts, std::less<>> by_claim(const scoria_task* task) const;
  // What `task` adds to queue `queue`: its claims the queue is not charged for.
  DeviceAmounts not_charged(const Queue& queue, const scoria_task* task) const;
  DeviceAmounts job_minimum(const scoria_job* job) const;
  bool fits(const Queue& queue, const DeviceAmounts& ask, bool with_inqueue) const;

  scoria_session* ssn_ = nullptr;
  bool active_ = false;
  bool consumable_ = false;
  std::vector<std::optional<Queue>> queues_;  // by queue index; none: no quota
};

}  // namespace capacity

#endif  // SCORIA_CAPACITY_DEVICE_QUOTA_H
