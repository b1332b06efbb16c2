// A job trace: jobs with an arrival time, how long they run, and what they
// ask for, read from a trace file (trace/csv_trace.h, trace/alibaba_trace.h)
// and written out as the objects `scoria simulate` reads (DESIGN.md
// section 4): a PodGroup per job, its pods, and the Queues and
// PriorityClasses they name, with the time annotations scoria.io/arrival
// and scoria.io/duration.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <ostream>
#include <set>
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

/// Writes jobs as multi-document YAML objects in `ns`, as they come: each
/// job's PodGroup and pods go to a temporary file at once, and finish()
/// writes the Queues and PriorityClasses the jobs named, then the jobs. It
/// holds the trace's queue names and priorities, not its jobs.
class TraceWriter {
 public:
  /// Throws InputError if no temporary file can be made.
  explicit TraceWriter(std::string ns);
  void add(const TraceJob& job);
  /// Writes everything to `out`; call once.
  void finish(std::ostream& out);

 private:
  std::string ns_;
  std::set<std::string> queues_;
  std::set<int32_t> priorities_;
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> jobs_;
  bool any_jobs_ = false;
};

/// `name` made a DNS-1123 label: lower case, [a-z0-9-], at most 50
/// characters (so that pod names built on it stay valid), never empty.
std::string label_of(std::string_view name);

}  // namespace scoria::trace
