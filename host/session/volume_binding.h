// Volumes decided with the pods, as kube-scheduler's volume plugins decide
// them (VolumeRestrictions, NodeVolumeLimits for CSI, VolumeBinding,
// VolumeZone; Volcano runs the same inside its predicates plugin): which
// nodes a pod's PersistentVolumeClaims allow, and, when the pod is placed,
// which volume each claim waiting for its first consumer is given or where
// its class is to provision one. What a placement takes is given back when
// it is undone (a discarded statement), so that no volume is chosen for two
// claims within a session and a gang's volumes come and go with the gang.
//
// Thread safety: check() runs on the predicate workers while no placement
// changes (placements happen on the session thread, between searches);
// what it computes lazily is kept under a mutex.
#pragma once

#include <scoria/scoria.h>

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "cycle/outcome.h"
#include "cycle/storage.h"
#include "session/made_once.h"

struct scoria_task;
struct scoria_node;

namespace scoria::session {

class VolumeBinder {
  using Task = scoria_task;
  using Node = scoria_node;

 public:
  /// A new session's storage and tasks (the binder keeps nothing of the
  /// last session's).
  void reset(const cycle::Storage& storage, std::span<const Task> tasks);

  /// The checks of `checks` (SCORIA_VOLUME_* bits) for `task` on `node`:
  /// SCORIA_OK, or the first failing check's code with its reason id in
  /// *reason, kube-scheduler's words.
  scoria_code check(const Task& task, const Node& node, uint32_t checks, uint32_t* reason) const;

  /// A reason that refuses `task` on every node whatever the node (a
  /// claim missing, unbound Immediate claims, ...): kube-scheduler's
  /// PreFilter rejection, shown as "0/N nodes are available: <reason>.";
  /// 0 if none.
  uint32_t task_wide_reason(const Task& task) const;

  /// `task` was placed on `node`: its claims waiting for a first consumer
  /// are given the smallest matching volume no other claim took this
  /// session, else marked for provisioning there where their class allows.
  void assume(const Task& task, const Node& node);
  /// Undoes assume() (the placement was undone).
  void release(const Task& task);
  /// What the placement of `task` decided, taken away (at its bind).
  std::vector<cycle::Outcome::VolumeBinding> take(const Task& task);

  // --- what the equivalence classes may keep (session/cached_answers.cpp)

  /// What check()'s answers for a task allow its class to keep.
  struct Sharing {
    /// Whether they may be kept until a node changes: not with a
    /// ReadWriteOncePod claim (they depend on where other pods are).
    bool keeps = true;
    /// Whether they read the volumes placements took: kept answers are
    /// then stale once epoch() moves.
    bool reads_taken = false;
    /// The class the task may share answers in with tasks alike but for
    /// their claims' names (TaskViews::alike_but_claims) whose claims mean
    /// the same to check(): kSharedClasses and up, the same for those tasks
    /// this session; 0 if it has none.
    uint32_t shared = 0;
  };
  Sharing sharing(const Task& task) const;
  /// Counts the changes to the volumes placements took this session.
  uint64_t epoch() const { return epoch_; }
  /// Where Sharing::shared's numbers start: above any TaskViews::equivalence.
  static constexpr uint32_t kSharedClasses = 0x80000000u;

 private:
  struct Claim {
    enum class State : uint8_t { Bound, Delayed, Immediate };
    std::string key;  // "ns/name"
    const model::PersistentVolumeClaim* pvc = nullptr;
    const model::PersistentVolume* volume = nullptr;  // Bound: its volume (null: none)
    const model::StorageClass* storage_class = nullptr;
    std::string class_name;
    State state = State::Immediate;
    bool ephemeral = false;
    bool once_pod = false;         // ReadWriteOncePod
    bool named_by_others = false;  // more pods than this one name the claim
    std::string selected;          // the node its volume.kubernetes.io/selected-node names
    uint32_t position = 0;         // among the pod's claims (Pod::claims)
  };
  // What a task's claims are, worked out once per session.
  struct Prepared {
    std::vector<Claim> claims;
    uint32_t restrictions_error = 0;  // VolumeRestrictions' PreFilter rejection
    uint32_t binding_error = 0;       // VolumeBinding's
    uint32_t zone_error = 0;          // VolumeZone's
    // VolumeZone: the zone and region labels of the bound volumes.
    std::vector<std::pair<std::string, std::vector<std::string>>> zones;
    // What the claims mean to check(), written so that two tasks with the
    // same text get the same answers on every node (Sharing::shared).
    std::string meaning;
    bool keeps = true;  // Sharing's
    bool reads_taken = false;
    uint32_t shared = 0;
    // check_binding's order: the bound claims; those waiting for a first
    // consumer (in the pod's order), and of them the ones no node was
    // selected for, smallest request first.
    std::vector<uint32_t> bound, delayed, by_request;
  };
  // One claim's answer on one node: a volume, provisioning, or a reason.
  struct Match {
    const model::PersistentVolume* volume = nullptr;
    bool provision = false;
    uint32_t reason = 0;
  };

  const Prepared& prepared(const Task& task) const;
  Prepared prepare(const Task& task) const;
  uint32_t check_binding(const Prepared& p, const Task& task, const Node& node,
                         std::vector<Match>* matches) const;
  // The claims waiting for a first consumer: their reason on `node`, 0 when
  // they all find a volume or provisioning (then in `matches`).
  uint32_t check_unbound(const Prepared& p, const Node& node, std::vector<Match>* matches) const;
  // The reason of a node where a bound claim failed with `bound_why` and an
  // unbound one with `unbound_why`.
  uint32_t joined_reason(uint32_t bound_why, uint32_t unbound_why) const;
  uint32_t check_zone(const Prepared& p, const Node& node) const;
  bool check_limits(const Prepared& p, const Task& task, const Node& node) const;
  bool once_pod_in_use(const Prepared& p, const Task& task) const;
  // The tasks naming each claim (not as an ephemeral volume), by key.
  const std::unordered_map<std::string, std::vector<uint32_t>>& claim_users() const;
  Match provision(const Claim& c, const Node& node) const;
  const model::PersistentVolume* find_volume(
      const Claim& c, const Node& node,
      const std::vector<const model::PersistentVolume*>& chosen) const;
  // A claim's (driver, volume) for the attach limit; empty driver: not counted.
  std::pair<std::string, std::string> attachment(const model::PodClaim& claim,
                                                 const model::Pod& pod) const;
  const model::StorageClass* class_of(const model::PersistentVolumeClaim& pvc,
                                      std::string* name) const;
  std::string meaning_of(const Prepared& p, const model::Pod& pod) const;
  // Whether more than one pod names the claim "ns/name".
  bool named_by_others(const std::string& key) const;

  cycle::Storage storage_;
  std::span<const Task> tasks_;
  mutable std::optional<std::unordered_map<std::string, std::vector<uint32_t>>> claim_users_;
  struct Reasons {
    uint32_t node_conflict = 0, bind_conflict = 0, not_enough_space = 0, pv_not_exist = 0,
             no_zone = 0, max_volumes = 0, once_pod = 0, immediate = 0;
    // Both kinds of claim failing on one node.
    uint32_t node_and_bind = 0, node_and_space = 0, bind_and_missing = 0, space_and_missing = 0;
  } why_;

  mutable std::mutex mutex_;
  mutable MadeOnce<Prepared> prepared_;  // by task index
  // Volumes placements took this session, with the task that took each.
  std::unordered_map<const model::PersistentVolume*, uint32_t> taken_;
  std::unordered_map<uint32_t, std::vector<cycle::Outcome::VolumeBinding>> decided_;
  // Claims other pods also name, decided by a placement this session.
  struct Assumed {
    const model::PersistentVolume* volume = nullptr;  // null: provisioned on `node`
    std::string node;
    uint32_t task = 0;
  };
  std::unordered_map<std::string, Assumed> assumed_;
  uint64_t epoch_ = 0;
  mutable std::unordered_map<std::string, uint32_t> shared_;  // meaning -> class
};

}  // namespace scoria::session
