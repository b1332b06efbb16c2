// What a session's decisions look like to people and tools watching the
// cluster, as Volcano's scheduler reports them: a Scheduled event per bound
// pod, an Evict event per evicted pod, PodScheduled=False (Unschedulable,
// or Schedulable when only its gang holds it back) and a FailedScheduling
// event on each pod left unplaced, PodGroup status (phase, counts, the Unschedulable condition)
// with an Unschedulable event on the PodGroup, and each Queue's allocated resources. Conditions,
// statuses and their events are reported when they change, not every session, so the writes stay
// bounded. Both cluster sources write what this reports: the local store directly, the Kubernetes
// source through the API server.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "cycle/outcome.h"

namespace scoria::api {

struct DecisionReport {
  /// core/v1 Events to create, each naming its namespace.
  std::vector<nlohmann::json> events;
  /// PodScheduled conditions to merge into pods' status, by pod key.
  std::vector<std::pair<std::string, nlohmann::json>> pod_conditions;
  /// Status fields to set on PodGroups (null removes one), by key.
  std::vector<std::pair<std::string, nlohmann::json>> pod_group_statuses;
  /// status.allocated to set on Queues, by name.
  std::vector<std::pair<std::string, nlohmann::json>> queue_statuses;
};

/// Sets `condition` in `object`'s status.conditions, replacing the one of
/// its type; its lastTransitionTime is kept when the status did not change
/// (as Kubernetes' UpdatePodCondition). False if nothing changed.
bool set_condition(nlohmann::json& object, nlohmann::json condition);

/// Sets `fields` in `object`'s status, one by one (a null one removed), as
/// a scheduler writes what it decided of a PodGroup or a Queue.
void merge_status(nlohmann::json& object, const nlohmann::json& fields);

/// What a scheduling.k8s.io PodGroup (`group`) reports of a status the
/// session gave it (`status`, as DecisionReport::pod_group_statuses holds
/// it): PodGroupInitiallyScheduled, True with reason Scheduled once its job
/// runs, else False with reason Unschedulable and why, as kube-scheduler
/// writes it; nothing once True (it is never taken back) or when there is
/// nothing to say.
std::optional<nlohmann::json> initially_scheduled_condition(
    const nlohmann::json& group, const nlohmann::json& status,
    std::chrono::system_clock::time_point now);

/// PodScheduled=True, as the API server sets it when a pod is bound.
nlohmann::json scheduled_condition(std::chrono::system_clock::time_point now);

class DecisionReports {
 public:
  /// `component`: the scheduler name events are reported by.
  explicit DecisionReports(std::string component);

  /// metadata.uid of a "Pod" or "PodGroup" by key, for the events'
  /// involvedObject (kubectl describe finds events by it); empty if unknown.
  using UidOf = std::function<std::string(std::string_view kind, const std::string& key)>;

  /// Whether report() makes the Scheduled events of an outcome's binds, or
  /// the source has drafted them with scheduled_event() already.
  enum class BindEvents { Make, Drafted };

  /// What `outcome` changes; `dims` name its resource vectors.
  DecisionReport report(const cycle::Outcome& outcome, const std::vector<std::string>& dims,
                        std::chrono::system_clock::time_point now, const UidOf& uid_of,
                        BindEvents bind_events = BindEvents::Make);

  /// What the store says was last reported about a PodGroup (its phase and
  /// unschedulable message), as if this process had reported it: a status
  /// that has not changed is then not written again after a restart.
  void remember_pod_group(const std::string& key, model::PodGroupPhase phase,
                          std::string unschedulable);

  /// What the server holds now about a PodGroup this process has reported
  /// on. Another writer may have changed it (a person, a controller, a
  /// second scheduler): what the server holds is then taken as reported, so
  /// that the next session writes its own status again, as Volcano writes
  /// whenever its decision differs from its informer's copy.
  void observe_pod_group(const std::string& key, model::PodGroupPhase phase,
                         const std::string& unschedulable);

  /// Whether report() would say nothing of `status`: a schedulable job
  /// whose phase was reported already.
  bool reported(const cycle::Outcome::PodGroupStatus& status) const;

  /// Forget what was reported about an object that is gone.
  void forget_pod(const std::string& key) { pod_messages_.erase(key); }
  void forget_pod_group(const std::string& key) { group_status_.erase(key); }
  void forget_queue(const std::string& name) { queue_allocated_.erase(name); }

  /// The unschedulable message last reported for a PodGroup, if any.
  const std::string* unschedulable(const std::string& pod_group) const;

  /// A core/v1 Event about `kind` `key` ("ns/name"), named as client-go's
  /// recorder names them (the object's name and a unique suffix, from the
  /// random `suffix`). Const, so that threads drafting a session's record
  /// can make events beside the one that reports.
  nlohmann::json event(const std::string& kind, const std::string& api_version,
                       const std::string& key, const std::string& uid, const std::string& reason,
                       const std::string& type, const std::string& message,
                       std::chrono::system_clock::time_point now, uint64_t suffix) const;
  /// The Scheduled event of a bound pod, as Volcano's cache writes it.
  nlohmann::json scheduled_event(const cycle::Outcome::Bind& bind, const std::string& uid,
                                 std::chrono::system_clock::time_point now, uint64_t suffix) const;
  nlohmann::json scheduled_event(const cycle::Outcome::Bind& bind, const std::string& uid,
                                 std::chrono::system_clock::time_point now) {
    return scheduled_event(bind, uid, now, random_());
  }

 private:
  std::string component_;
  std::mt19937_64 random_;
  std::unordered_map<std::string, std::string> pod_messages_;  // pending pod -> "reason: message"
  std::unordered_map<std::string, std::pair<std::string, std::string>> group_status_;
  std::unordered_map<std::string, std::string> queue_allocated_;
};

}  // namespace scoria::api
