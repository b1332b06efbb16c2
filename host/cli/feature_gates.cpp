#include "cli/feature_gates.h"

#include <array>
#include <utility>

#include "model/error.h"

namespace scoria::cli {

namespace {

constexpr std::string_view kQueueAdmission = "SchedulingGatesQueueAdmission";

// Volcano's other gates, at the value Scoria always behaves as.
constexpr std::array<std::pair<std::string_view, bool>, 8> kFixed{{
    {"WorkLoadSupport", true},
    {"VolcanoJobSupport", true},
    {"PodDisruptionBudgetsSupport", true},
    {"QueueCommandSync", true},
    {"PriorityClass", true},
    {"CSIStorage", false},
    {"ResourceTopology", true},
    {"CronVolcanoJobSupport", true},
}};

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

}  // namespace

bool FeatureGates::take(std::string_view flag, const std::function<std::string()>& value) {
  if (flag != "--feature-gates") return false;
  const std::string list = value();
  std::string_view rest = list;
  while (!rest.empty()) {
    const size_t comma = rest.find(',');
    const std::string_view entry = trimmed(rest.substr(0, comma));
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    if (entry.empty()) continue;
    const size_t eq = entry.find('=');
    const std::string_view name = trimmed(entry.substr(0, eq));
    const std::string_view said =
        eq == std::string_view::npos ? std::string_view() : trimmed(entry.substr(eq + 1));
    const std::string at = "--feature-gates " + std::string(entry) + ": ";
    if (said != "true" && said != "false")
      throw InputError(at + "give each gate as NAME=true or NAME=false");
    const bool on = said == "true";
    if (name == kQueueAdmission) {
      queue_admission_gates_ = on;
      continue;
    }
    bool known = false;
    for (const auto& [gate, always] : kFixed) {
      if (gate != name) continue;
      known = true;
      if (on != always)
        throw InputError(at + "not supported: Scoria always behaves as " + std::string(gate) + "=" +
                         (always ? "true" : "false") +
                         "; what else Volcano gates is configured in the scheduler config");
    }
    if (!known)
      throw InputError(at + "unrecognized feature gate " + std::string(name) +
                       "; Scoria knows Volcano's (" + std::string(kQueueAdmission) +
                       " takes effect)");
  }
  return true;
}

}  // namespace scoria::cli
