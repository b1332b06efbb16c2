#include "serve/cache_dump.h"

#include <map>
#include <string>
#include <vector>

#include "session/task_status.h"

namespace scoria::serve {

namespace {

constexpr const char* kStatusNames[10] = {"Pending", "Allocated", "Pipelined", "Binding",
                                          "Bound",   "Running",   "Releasing", "Succeeded",
                                          "Failed",  "Unknown"};

const char* status_name(uint32_t status) {
  for (int b = 0; b < 10; ++b)
    if (status == (1u << b)) return kStatusNames[b];
  return "Unknown";
}

}  // namespace

nlohmann::json amounts(const std::vector<std::string>& dims, std::span<const double> values) {
  nlohmann::json out = nlohmann::json::object();
  for (size_t d = 0; d < dims.size() && d < values.size(); ++d) out[dims[d]] = values[d];
  return out;
}

nlohmann::json dump_cache(const cycle::Snapshot& snapshot, const cycle::Outcome& last) {
  const size_t dims = snapshot.dims.size();
  std::vector<std::vector<double>> used(snapshot.nodes.size(), std::vector<double>(dims, 0));
  nlohmann::json jobs = nlohmann::json::array();
  for (const auto& job : snapshot.jobs) {
    std::map<std::string, int> counts;
    for (const auto& task : job.tasks) {
      ++counts[status_name(task.status)];
      if (task.node >= 0 &&
          (session::is_allocated_status(task.status) || task.status == SCORIA_TASK_RELEASING))
        for (size_t d = 0; d < dims; ++d) used[static_cast<size_t>(task.node)][d] += task.resreq[d];
    }
    nlohmann::json j;
    j["name"] = job.group->namespace_ + "/" + job.group->name;
    j["queue"] = job.queue >= 0 ? snapshot.queues[static_cast<size_t>(job.queue)].spec->name : "";
    j["phase"] = model::phase_name(job.phase);
    j["minMember"] = job.group->min_member;
    j["tasks"] = counts;
    jobs.push_back(std::move(j));
  }
  nlohmann::json nodes = nlohmann::json::array();
  for (size_t n = 0; n < snapshot.nodes.size(); ++n) {
    const auto& node = snapshot.nodes[n];
    std::vector<double> idle(dims);
    for (size_t d = 0; d < dims; ++d) idle[d] = node.allocatable[d] - used[n][d];
    nodes.push_back({{"name", node.spec->name},
                     {"allocatable", amounts(snapshot.dims, node.allocatable)},
                     {"used", amounts(snapshot.dims, used[n])},
                     {"idle", amounts(snapshot.dims, idle)}});
  }
  nlohmann::json queues = nlohmann::json::array();
  for (const auto& q : last.queues) {
    nlohmann::json entry = {{"name", q.name}, {"allocated", amounts(snapshot.dims, q.allocated)}};
    if (!q.deserved.empty()) entry["deserved"] = amounts(snapshot.dims, q.deserved);
    queues.push_back(std::move(entry));
  }
  return {{"nodes", nodes}, {"jobs", jobs}, {"queues", queues}};
}

}  // namespace scoria::serve
