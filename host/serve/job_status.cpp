#include "serve/job_status.h"

#include <array>
#include <optional>
#include <string_view>

namespace scoria::serve {

namespace {

using nlohmann::json;
using Phase = model::PodPhase;

// What `object` holds at `key`: null when it is not a mapping or has none
// (a stored Job was checked at create, but its status is anyone's).
const json& at(const json& object, std::string_view key) {
  static const json null;
  if (!object.is_object()) return null;
  const auto it = object.find(key);
  return it == object.end() ? null : *it;
}

std::optional<int32_t> int_at(const json& object, std::string_view key) {
  const json& v = at(object, key);
  if (!v.is_number_integer()) return std::nullopt;
  return v.get<int32_t>();
}

std::string text_at(const json& object, std::string_view key) {
  const json& v = at(object, key);
  return v.is_string() ? v.get<std::string>() : std::string();
}

struct Counts {
  std::array<int32_t, 5> by_phase{};  // by Phase
  int32_t terminating = 0;
  json by_task = json::object();

  int32_t of(Phase p) const { return by_phase[static_cast<size_t>(p)]; }
};

Counts count(std::span<const model::Pod* const> pods) {
  Counts c;
  for (const model::Pod* pod : pods) {
    // A pod being deleted counts as terminating only, as the controller
    // counts it.
    if (pod->deleting) {
      ++c.terminating;
      continue;
    }
    ++c.by_phase[static_cast<size_t>(pod->phase)];
    if (!pod->role.empty()) {
      json& phases = c.by_task[pod->role]["phase"];
      if (!phases.is_object()) phases = json::object();
      const char* name = model::phase_name(pod->phase);
      phases[name] = phases.value(name, 0) + 1;
    }
  }
  return c;
}

/// The state the running state moves to, or nullopt to stay Running.
std::optional<std::string> from_running(const json& spec, int32_t min_available, const Counts& c) {
  const int32_t succeeded = c.of(Phase::Succeeded);
  const std::optional<int32_t> min_success = int_at(spec, "minSuccess");
  if (min_success && succeeded >= *min_success) return "Completed";
  int32_t replicas = 0, task_min = 0;
  const json& tasks = at(spec, "tasks");
  if (!tasks.is_array()) return std::nullopt;
  for (const json& t : tasks) {
    const int32_t r = int_at(t, "replicas").value_or(0);
    replicas += r;
    task_min += int_at(t, "minAvailable").value_or(r);
  }
  if (succeeded + c.of(Phase::Failed) != replicas) return std::nullopt;
  if (min_available >= task_min) {
    for (const json& t : tasks) {
      const std::optional<int32_t> task_min_available = int_at(t, "minAvailable");
      if (!task_min_available) continue;
      const int32_t done =
          int_at(at(at(c.by_task, text_at(t, "name")), "phase"), "Succeeded").value_or(0);
      if (done < *task_min_available) return "Failed";
    }
  }
  if (min_success && succeeded < *min_success) return "Failed";
  return succeeded >= min_available ? "Completed" : "Failed";
}

}  // namespace

json job_status(const json& job, int32_t min_available, std::span<const model::Pod* const> pods,
                const std::string& now) {
  const json& spec = at(job, "spec");
  const json& before_state = at(at(job, "status"), "state");
  const std::string phase = text_at(before_state, "phase");
  const Counts c = count(pods);
  std::string next = phase.empty() ? "Pending" : phase;
  const int32_t started = c.of(Phase::Running) + c.of(Phase::Succeeded) + c.of(Phase::Failed);
  if (next == "Pending" && started >= min_available) next = "Running";
  if (next == "Running")
    if (std::optional<std::string> done = from_running(spec, min_available, c)) next = *done;
  json state = {{"phase", next}};
  const std::string since = text_at(before_state, "lastTransitionTime");
  state["lastTransitionTime"] = next == phase && !since.empty() ? since : now;
  json status = {{"state", std::move(state)}};
  // Zeros are left out, as Volcano's JobStatus writes them (omitempty).
  const auto put = [&status](const char* key, int32_t n) {
    if (n != 0) status[key] = n;
  };
  put("minAvailable", min_available);
  put("pending", c.of(Phase::Pending));
  put("running", c.of(Phase::Running));
  put("succeeded", c.of(Phase::Succeeded));
  put("failed", c.of(Phase::Failed));
  put("terminating", c.terminating);
  put("unknown", c.of(Phase::Unknown));
  if (!c.by_task.empty()) status["taskStatusCount"] = c.by_task;
  return status;
}

}  // namespace scoria::serve
