// A job trace: jobs with an arrival time, how long they run, and what they
// ask for, read from a trace file (trace/csv_trace.h, trace/alibaba_trace.h)
// and written out as the objects `scoria simulate` reads (DESIGN.md
// section 4): a PodGroup per job, its pods, and the Queues and
// PriorityClasses they name, with the time annotations scoria.io/arrival
// and scoria.io/duration.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace scoria::trace {

/// Pods of one role of a job, alike.
struct TraceTask {
  std::string role;  // volcano.sh/task-spec; empty for a job of one kind of pod
  int32_t replicas = 1;
  std::string cpu, memory;  // Kubernetes quantities, checked
  int64_t gpus = 0;         // whole nvidia.com/gpu per pod
  double duration_s = 0;    // how long each pod runs once bound
};

struct TraceJob {
  std::string name;  // a DNS-1123 label (PodGroup name, pod name prefix)
  std::string queue = "default";
  double arrival_s = 0;  // from the start of the trace
  int32_t min_available = 1;
  std::optional<int32_t> priority;
  std::vector<TraceTask> tasks;
};

/// The objects for `jobs`, as multi-document YAML, in `ns`.
std::string trace_objects_yaml(const std::vector<TraceJob>& jobs, const std::string& ns);

/// `name` made a DNS-1123 label: lower case, [a-z0-9-], at most 50
/// characters (so that pod names built on it stay valid), never empty.
std::string label_of(std::string_view name);

}  // namespace scoria::trace
