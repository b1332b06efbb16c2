#include "trace/job_trace.h"

#include <cstdio>
#include <set>

namespace scoria::trace {

namespace {

std::string seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", s);
  std::string out = buf;
  while (out.back() == '0') out.pop_back();
  if (out.back() == '.') out.pop_back();
  return out;
}

std::string priority_class(int32_t value) {
  return value < 0 ? "trace-priority-minus-" + std::to_string(-static_cast<int64_t>(value))
                   : "trace-priority-" + std::to_string(value);
}

}  // namespace

std::string label_of(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (ok) {
      out += c;
    } else if (!out.empty() && out.back() != '-') {
      out += '-';
    }
    if (out.size() == 50) break;
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out.empty() ? "job" : out;
}

std::string trace_objects_yaml(const std::vector<TraceJob>& jobs, const std::string& ns) {
  std::set<std::string> queues;
  std::set<int32_t> priorities;
  for (const auto& j : jobs) {
    if (j.queue != "default") queues.insert(j.queue);
    if (j.priority) priorities.insert(*j.priority);
  }
  std::string out;
  out.reserve(jobs.size() * 900);
  for (const auto& q : queues)
    out += "apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: {name: " + q +
           "}\nspec: {weight: 1, reclaimable: true}\n---\n";
  for (int32_t p : priorities)
    out += "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: " +
           priority_class(p) + "}\nvalue: " + std::to_string(p) + "\n---\n";
  for (const auto& j : jobs) {
    const std::string pc =
        j.priority ? ", priorityClassName: " + priority_class(*j.priority) : std::string();
    out += "apiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\nmetadata: {name: " + j.name +
           ", namespace: " + ns + ", annotations: {scoria.io/arrival: \"" + seconds(j.arrival_s) +
           "\"}}\nspec: {minMember: " + std::to_string(j.min_available) + ", queue: " + j.queue +
           pc + "}\n---\n";
    for (const auto& t : j.tasks) {
      const std::string prefix = t.role.empty() ? j.name : j.name + "-" + t.role;
      std::string requests = "cpu: \"" + t.cpu + "\", memory: \"" + t.memory + "\"";
      if (t.gpus > 0) {
        const std::string g = std::to_string(t.gpus);
        requests += ", nvidia.com/gpu: \"" + g + "\"";
      }
      std::string annotations = "scheduling.k8s.io/group-name: " + j.name +
                                ", scoria.io/arrival: \"" + seconds(j.arrival_s) +
                                "\", scoria.io/duration: \"" + seconds(t.duration_s) + "\"";
      if (!t.role.empty()) annotations += ", volcano.sh/task-spec: " + t.role;
      for (int32_t i = 0; i < t.replicas; ++i) {
        out += "apiVersion: v1\nkind: Pod\nmetadata: {name: " + prefix + "-" + std::to_string(i) +
               ", namespace: " + ns + ", annotations: {" + annotations +
               "}}\nspec:\n  schedulerName: volcano\n";
        if (j.priority) out += "  priorityClassName: " + priority_class(*j.priority) + "\n";
        out += "  containers: [{name: main, image: trace, resources: {requests: {" + requests +
               (t.gpus > 0 ? "}, limits: {nvidia.com/gpu: \"" + std::to_string(t.gpus) + "\"}}}]\n"
                           : "}}}]\n");
        out += "---\n";
      }
    }
  }
  if (out.size() >= 4) out.resize(out.size() - 4);  // the last separator
  if (!out.empty()) out += "\n";
  return out;
}

}  // namespace scoria::trace
