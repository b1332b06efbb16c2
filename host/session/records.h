// The records a session holds, one per task, job, sub-job, node and queue,
// in dense arrays. They are also the opaque SDK handles (scoria_task,
// scoria_job, ...): a handle is a pointer to the session's own record, so
// no lookup is needed to go from handle to data. Plain data: a session
// writes hundreds of thousands of them, and the next may keep them
// (session_memory.h). A field added here is written by the session
// (session.cpp, write_job) and compared by the check of kept records
// (session_reuse.cpp, verify_records), whose size check says so.
#pragma once

#include <scoria/scoria.h>

#include <cstdint>
#include <memory_resource>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "cycle/snapshot.h"
#include "model/objects.h"
#include "session/hyper_nodes.h"
#include "session/task_range.h"

namespace scoria::session {
class Session;
}  // namespace scoria::session

/// Predicate failures of one task: reason id -> number of nodes, and how
/// many nodes were tried (for "0/N nodes are available: ...").
struct FitErrors {
  std::vector<std::pair<uint32_t, uint32_t>> reasons;
  uint32_t nodes_tried = 0;
  bool recorded = false;
  // A reason that held on every node whatever the node (a PreFilter
  // rejection, such as a claim that does not exist); 0 if none.
  uint32_t task_wide = 0;
};

struct scoria_task {
  scoria::session::Session* ssn = nullptr;
  const scoria::model::Pod* pod = nullptr;
  const scoria::cycle::TaskViews* views = nullptr;
  uint32_t index = 0;
  uint32_t job = 0;
  uint32_t sub_job = 0;  // index into the session's sub-jobs
  int32_t node = -1;     // index of the node it occupies or is headed to
  uint32_t status = SCORIA_TASK_PENDING;
  int32_t priority = 0;
  bool best_effort = false;
  bool committed = false;  // an allocate of it was committed this session
  // Status it had when a statement holding it was discarded (Volcano's
  // LastTransaction): a pending task that was placeable counts as such in
  // the gang's message.
  uint32_t last_discarded = 0;
  int32_t last_discarded_node = -1;  // where it was headed then
  // The snapshot's (the cache's) vectors: never written in a session.
  const double* resreq = nullptr;
  const double* init_resreq = nullptr;
  // Where the session keeps what is rare and owns memory, so that a task
  // record is plain data (sessions build and drop hundreds of thousands):
  // 1 + the index of its predicate failures (Session::fit_of), and of what
  // plugins asked to write on the pod when this allocation is bound
  // (Session::bind_annotations_of); 0 for none.
  uint32_t fit = 0;
  uint32_t bind_annotations = 0;
};

struct scoria_job {
  scoria::session::Session* ssn = nullptr;
  const scoria::model::PodGroup* group = nullptr;
  uint32_t index = 0;
  int32_t queue = -1;
  uint32_t phase = SCORIA_PHASE_PENDING;
  int32_t priority = 0;
  scoria::session::TaskRange tasks;  // indices into the session's tasks
  int32_t status_count[10] = {};
  int32_t pending_best_effort = 0;  // Pending tasks that ask for nothing
  int32_t committed = 0;            // tasks whose allocation was committed
  double* allocated = nullptr;
  double* total_request = nullptr;
  const double* min_resources = nullptr;
  // Job-level reason (enqueue refused, invalid, ...): the cache's text or
  // one the session keeps (Session::keep_message).
  std::string_view fit_error;
  std::string_view uid;  // "namespace/name": Snapshot::JobIn::key
  // What job_info reports of the PodGroup, as the snapshot hands it over:
  // plugins walk every job several times a session, and this array is all
  // they read.
  scoria::cycle::GroupFields spec;
  uint32_t source = UINT32_MAX;  // Snapshot::JobIn::source
  uint64_t source_seq = 0;       // Snapshot::JobIn::source_seq
  // Why the cache cannot let it be scheduled (something it names is
  // missing); empty if it can. job_valid() refuses it with this reason.
  // Snapshot::JobIn::invalid.
  std::string_view invalid;
  // spec.networkTopology as the session prepares it (hyper_nodes.h), with
  // the allocated HyperNode the allocating action keeps up to date.
  scoria_network_topology topology = scoria::session::kNoNetworkTopology;
  // Its sub-jobs: sub_job_count of the session's, from first_sub_job.
  uint32_t first_sub_job = 0;
  uint32_t sub_job_count = 0;
  bool has_sub_group_policy = false;  // spec.subGroupPolicy is not empty
};

// A sub-job (Volcano's SubJobInfo; session/sub_jobs.h forms them).
struct scoria_sub_job {
  scoria::session::Session* ssn = nullptr;
  uint32_t job = 0;    // the session's job index
  uint32_t index = 0;  // among its job's sub-jobs
  std::string_view uid, gid;
  uint32_t policy = SCORIA_NO_SUB_GROUP_POLICY;
  int32_t min_available = 1;
  int64_t match_index = 0;
  int32_t priority = 0;
  // Its tasks: the job's whole range for a job's only sub-job when the job
  // has no policy (no list to build), else `range` indexes the session's
  // list of sub-job members (Session::sub_job_task), in task order. Nothing
  // here owns memory: a session has one per job, and builds them each time.
  scoria::session::TaskRange range;
  bool whole_job = true;
  int32_t status_count[10] = {};
  int32_t pending_best_effort = 0;  // Pending tasks that ask for nothing
  // Its policy's networkTopology (the job's for the default sub-job), as
  // the session prepares it.
  scoria_network_topology topology = scoria::session::kNoNetworkTopology;

  size_t size() const { return range.size(); }
};

struct scoria_node {
  scoria_node() = default;
  explicit scoria_node(std::pmr::memory_resource* task_memory) : tasks(task_memory) {}

  scoria::session::Session* ssn = nullptr;
  const scoria::model::Node* spec = nullptr;
  uint32_t index = 0;
  // Its tasks, from the session's node_task_memory_ (one buffer for all
  // nodes instead of an allocation each).
  std::pmr::vector<uint32_t> tasks;
  const double* allocatable = nullptr;
  double* idle = nullptr;
  double* used = nullptr;
  double* releasing = nullptr;
  double* pipelined = nullptr;
};

struct scoria_queue {
  scoria::session::Session* ssn = nullptr;
  const scoria::model::Queue* spec = nullptr;
  uint32_t index = 0;
  const double* capability = nullptr;
  const double* deserved = nullptr;
  const double* guarantee = nullptr;
  double* allocated = nullptr;
  // Deserved share a plugin computed this session (session_queue_set_deserved);
  // empty until one does.
  std::vector<double> status_deserved;
  // Real capability a plugin computed this session
  // (session_queue_set_real_capability, for metrics); empty until one does.
  std::vector<double> real_capability;
  // What the overused hooks last said of it this session (for metrics).
  std::optional<bool> overused;
};

namespace scoria::session {

using Task = scoria_task;
using Job = scoria_job;
using Node = scoria_node;
using Queue = scoria_queue;
using SubJob = scoria_sub_job;

}  // namespace scoria::session
