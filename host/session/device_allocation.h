// Devices decided with the pods, as kube-scheduler's DynamicResources plugin
// and the structured allocator (k8s.io/dynamic-resource-allocation) decide
// them: which nodes a pod's ResourceClaims allow, and, when the pod is
// placed, which devices each claim not yet allocated is given. The host
// checks this for every pod that claims devices, whatever the plugins
// (fail closed: a pod is never placed where its devices cannot be
// allocated). What a placement takes is given back when it is undone (a
// discarded statement), so that no device serves two claims within a
// session and a gang's devices come and go with the gang.
//
// Thread safety: check() runs on the predicate workers while no placement
// changes (placements happen on the session thread, between searches);
// what it computes lazily is made under a mutex or in atomics.
#pragma once

#include <scoria/scoria.h>

#include <atomic>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

#include "cel/program.h"
#include "cycle/devices.h"
#include "cycle/outcome.h"
#include "session/made_once.h"

struct scoria_task;
struct scoria_node;

namespace scoria::session {

class DeviceAllocator {
  using Task = scoria_task;
  using Node = scoria_node;

 public:
  /// A new session's devices, tasks and nodes (nothing of the last
  /// session's is kept).
  void reset(const cycle::Devices& devices, std::span<const Task> tasks,
             std::span<const Node> nodes);

  /// Whether `task` claims devices (spec.resourceClaims).
  static bool claims(const Task& task);
  /// Whether the session has any ResourceClaim.
  bool any_claims() const { return devices_.claims != nullptr && !devices_.claims->empty(); }
  /// The claim `ref` of `pod` stands for, as the resource-claim controller
  /// resolves it; null if it does not exist (yet). `key` is scratch space,
  /// left holding "namespace/name".
  const model::ResourceClaim* resolve(const model::Pod& pod, const model::DeviceClaimRef& ref,
                                      std::string& key) const;

  /// A reason that refuses `task` on every node (a claim missing, being
  /// deleted, not the pod's, in use, a class missing, a selector that does
  /// not compile): kube-scheduler's PreFilter rejection; 0 if none.
  uint32_t task_wide_reason(const Task& task) const;

  /// 0 if every claim of `task` is or can be allocated on `node` (with
  /// the devices no other claim holds or took this session), else why not,
  /// in kube-scheduler's words. `future`: devices released by evicted
  /// tasks count as free, as a node's releasing resources count for a pod
  /// that may wait for them.
  uint32_t check(const Task& task, const Node& node, bool future = false) const;

  /// `task` is placed on `node`: its claims not yet allocated are given
  /// devices there. False, taking nothing, if they cannot be. A pipelined
  /// placement (`future`) may take devices released by evicted tasks.
  bool assume(const Task& task, const Node& node, bool future = false);

  /// `task` is evicted (Releasing), or that is undone: the devices of its
  /// allocated claims that no other pod still holding its node has
  /// reserved are released, as the resource-claim controller deallocates
  /// a claim once no pod uses it. Released devices stay taken for a pod
  /// to bind now; they count as free in the `future` (a pipelined
  /// placement, a predicate asked for preemption). Session thread only.
  void evict(const Task& task);
  void unevict(const Task& task);
  /// Undoes assume() (the placement was undone).
  void release(const Task& task);
  /// What the placement of `task` decided, taken away (at its bind).
  std::vector<cycle::Outcome::ClaimAllocation> take(const Task& task);

  /// What the claims of `task` ask of each device class, as Volcano's queue
  /// quota counts it (scoria_device_demand): made on first call, kept for
  /// the session. Call it from the session's thread.
  std::span<const scoria_device_demand> demands(const Task& task) const;

  /// Whether kept answers for `task` go stale when epoch() moves, and the
  /// meaning of its claims: tasks of one equivalence class share answers
  /// only while their meanings match (0: never share).
  struct Sharing {
    bool reads_taken = false;
    uint32_t meaning = 0;
  };
  Sharing sharing(const Task& task) const;
  /// Counts the placements that took or gave back devices other nodes
  /// could use, or decided a claim other pods also name.
  uint64_t epoch() const { return epoch_; }

 private:
  struct SelectorList;
  // One way to satisfy a request: the request itself, or one of its
  // firstAvailable alternatives.
  struct Ask {
    const model::DeviceAsk* spec = nullptr;
    const model::DeviceClass* device_class = nullptr;
    std::string name;                         // "req", or "req/sub" for an alternative
    std::string base;                         // the request's name
    std::string sub;                          // the alternative's name; empty for none
    const SelectorList* selectors = nullptr;  // the class's, then the request's
  };
  struct Request {
    std::vector<Ask> asks;  // one, or the alternatives in order
  };
  struct Claim {
    std::string key;  // "ns/name"
    const model::ResourceClaim* claim = nullptr;
    bool allocated = false;         // status.allocation set
    bool shared = false;            // other pods name it too
    std::vector<Request> requests;  // for a claim to allocate
  };
  // What a task's claims are, worked out once per session.
  struct Prepared {
    uint32_t error = 0;  // task-wide reason
    std::vector<Claim> claims;
    uint32_t meaning = 0;
    bool reads_taken = false;
  };
  // A device of a ResourceSlice, numbered for the session.
  struct Device {
    const model::ResourceSlice* slice = nullptr;
    const model::Device* spec = nullptr;
    uint32_t pool = 0;
    bool node_local = false;  // available on one node only
  };
  struct Pool {
    std::string driver, name;
    bool complete = false;
    std::string invalid;            // why the pool cannot be used; empty if it can
    std::vector<uint32_t> devices;  // its devices (current generation), in order
    std::map<std::string, std::map<std::string, cel::Quantity>> counters;
  };
  // A selector list: a class's selectors then a request's, their programs
  // (each distinct expression compiled once per session), and whether they
  // match each device: all of them are asked when the list is first made,
  // as kube-scheduler meets a runtime error on whichever node it reaches it.
  struct SelectorList {
    std::string device_class;
    size_t class_selectors = 0;                 // how many of the first are the class's
    std::vector<const cel::Program*> programs;  // null: does not compile
    std::vector<std::string> expressions;
    std::vector<uint8_t> matched;  // by device: 1 all match, 2 one does not, 3 one fails
    // The first failure, by device order: which selector, on which device, why.
    std::optional<std::pair<size_t, uint32_t>> failed;
    std::string failure;
  };
  // One device chosen by a search.
  struct Chosen {
    uint32_t claim = 0;   // index into Prepared::claims
    std::string request;  // "req" or "req/sub"
    uint32_t device = 0;
    bool admin = false;  // adminAccess: the device is not taken
  };
  class Search;

  void build() const;
  const Prepared& prepared(const Task& task) const;
  Prepared prepare(const Task& task) const;
  const SelectorList* selector_list(const model::DeviceClass* device_class,
                                    const model::DeviceAsk& ask) const;
  // Why the list refuses the claim `claim` on every node (a selector that
  // does not compile, or fails on a device); empty if it does not.
  std::string selector_error(const SelectorList& list, const std::string& claim) const;
  bool usable_on(const Device& d, const model::Node& node) const;
  // The search on one node: the devices chosen, or why none fit.
  uint32_t search(const Prepared& p, const Task& task, const Node& node,
                  std::vector<Chosen>* chosen, bool future) const;
  std::optional<std::vector<model::NodeSelectorTerm>> node_selector_of(
      std::span<const Chosen> chosen, uint32_t claim, const model::Node& node) const;
  bool taken(uint32_t device, bool future) const {
    return (in_use_[device] != 0 && !(future && released_[device] != 0)) || taken_[device] != 0;
  }
  // The devices `claim` holds (status.allocation), admin access aside.
  std::vector<uint32_t> held_by(const model::ResourceClaim& claim) const;

  cycle::Devices devices_;
  std::span<const Task> tasks_;
  std::span<const Node> nodes_;

  mutable std::mutex mutex_;
  mutable std::atomic<bool> built_{false};
  // Built once per session by build(), under mutex_, read-only after.
  mutable std::vector<Device> all_;
  mutable std::vector<Pool> pools_;
  mutable std::vector<std::vector<uint32_t>> node_pools_;  // by node: pools it sees
  mutable std::vector<uint8_t> in_use_;                    // by device: allocated in status
  mutable std::unordered_map<std::string, uint32_t> device_index_;  // "driver/pool/device"
  mutable std::unordered_map<std::string, uint32_t> claim_pods_;    // pods naming each claim
  // Made under mutex_ as tasks are prepared.
  mutable std::map<std::string, std::variant<cel::Program, cel::ParseError>, std::less<>> programs_;
  mutable std::deque<SelectorList> lists_;  // never moved: asks point at them
  mutable std::map<std::string, const SelectorList*> list_ids_;
  mutable std::map<std::string, uint32_t> meanings_;
  mutable MadeOnce<Prepared> prepared_;  // by task index
  // A task's demands; `entries` point into `keys` (a deque: never moves).
  struct Demands {
    std::deque<std::string> keys;
    std::vector<scoria_device_demand> entries;
  };
  mutable MadeOnce<Demands> demands_;  // by task index

  // Placements this session: by device, 1 + the task that took it (sized
  // by build()).
  mutable std::vector<uint32_t> taken_;
  std::unordered_map<uint32_t, std::vector<uint32_t>> taken_by_;  // task -> its devices
  std::unordered_map<uint32_t, std::vector<cycle::Outcome::ClaimAllocation>> decided_;
  // Claims other pods also name, allocated by a placement this session.
  struct Assumed {
    std::optional<std::vector<model::NodeSelectorTerm>> node_selector;
    uint32_t task = 0;
  };
  std::unordered_map<std::string, Assumed> assumed_;
  uint64_t epoch_ = 0;
  // Evictions this session: by claim, how many pods reserving it still
  // hold their nodes (made on the claim's first eviction); by device, how
  // many claims holding it have been released (sized by build()).
  std::unordered_map<std::string, size_t> holders_left_;
  mutable std::vector<uint32_t> released_;  // sized by build()

  struct Reasons {
    uint32_t cannot_allocate = 0, not_available = 0, invalid_pools = 0;
  } why_;
};

}  // namespace scoria::session
