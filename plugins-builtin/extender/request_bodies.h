// The request bodies Volcano's extender sends, built from what the SDK
// exposes. Volcano marshals its scheduler's own structs (api.TaskInfo,
// api.NodeInfo, api.JobInfo, api.QueueInfo) with encoding/json, so their
// Go field names are the JSON keys ("UID", "Resreq", "Idle", ...) while
// the Kubernetes objects inside them (Pod, Node, PodGroup, Queue) have
// their usual lower-case API fields. Each body is written per call: the
// state it shows (a node's idle resources, a task's node) changes as the
// session allocates.
#pragma once

#include <scoria/scoria.h>

#include "json_writer.h"

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace scoria_extender {

class RequestBodies {
 public:
  /// For one session; reads the session's resource dimension names once.
  explicit RequestBodies(const scoria_session* ssn);

  /// api.TaskInfo, with its whole Pod.
  void task(JsonWriter& w, const scoria_task* t) const;
  /// api.NodeInfo, with a v1.Node built from the typed views and the tasks
  /// on the node.
  void node(JsonWriter& w, const scoria_node* n) const;
  /// api.JobInfo, with its tasks and a PodGroup built from the typed views.
  void job(JsonWriter& w, const scoria_job* j) const;
  /// api.QueueInfo, with the Queue object as the source gave it.
  void queue(JsonWriter& w, const scoria_queue* q) const;

  /// OnSessionOpenRequest: Jobs, Nodes, Queues, NamespaceInfo,
  /// RevocableNodes, NodeList.
  std::string session_open() const;
  /// PredicateRequest {"task", "node"}.
  std::string predicate(const scoria_task* t, const scoria_node* n) const;
  /// PrioritizeRequest {"task", "nodes"}.
  std::string prioritize(const scoria_task* t, std::span<const scoria_node* const> nodes) const;
  /// PreemptableRequest / ReclaimableRequest {"evictor", "evictees"}.
  std::string victims(const scoria_task* evictor,
                      std::span<const scoria_task* const> evictees) const;
  /// JobEnqueueableRequest, JobEnqueuedRequest, JobReadyRequest {"job"}.
  std::string job_request(const scoria_job* j) const;
  /// QueueOverusedRequest {"queue"}.
  std::string queue_request(const scoria_queue* q) const;
  /// EventHandlerRequest {"task"}.
  std::string event(const scoria_task* t) const;

 private:
  /// api.Resource {MilliCPU, Memory, ScalarResources, MaxTaskNum}.
  void resource(JsonWriter& w, const double* v, bool count_pods) const;
  /// A v1.ResourceList of quantities (status.allocatable, minResources).
  void resource_list(JsonWriter& w, const double* v) const;

  const scoria_session* ssn_;
  std::vector<std::string> dims_;
};

}  // namespace scoria_extender
