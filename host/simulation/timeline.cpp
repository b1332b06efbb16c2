#include "simulation/timeline.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <tuple>
#include <utility>

#include "model/error.h"
#include "model/time_annotation.h"

namespace scoria::simulation {

namespace {

constexpr std::string_view kTimeKeys[] = {kArrival, kDuration, kRemoval, kCordon, kUncordon};

bool has_time_key(const std::map<std::string, std::string>& annotations) {
  for (std::string_view k : kTimeKeys)
    if (annotations.find(std::string(k)) != annotations.end()) return true;
  return false;
}

// The annotation `key` of `what` as ms, if present; refuses what is not a
// number of seconds or is negative, naming the object and the annotation.
std::optional<int64_t> seconds_of(const std::map<std::string, std::string>& annotations,
                                  std::string_view key, const std::string& what) {
  const auto it = annotations.find(std::string(key));
  if (it == annotations.end()) return std::nullopt;
  const std::optional<int64_t> ms = parse_seconds(it->second);
  if (!ms)
    throw InputError(what + ": metadata.annotations[" + std::string(key) + "]: \"" + it->second +
                     "\" is not a number of seconds (e.g. \"90\" or \"1.5\")");
  if (*ms < 0)
    throw InputError(what + ": metadata.annotations[" + std::string(key) + "]: \"" + it->second +
                     "\" is negative; give " +
                     (key == kDuration ? "how many seconds the pod runs once bound"
                                       : "seconds from the start of the run") +
                     ", 0 or more");
  return ms;
}

}  // namespace

std::optional<int64_t> parse_seconds(std::string_view text) {
  double v = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (ec != std::errc() || ptr != end || !std::isfinite(v)) return std::nullopt;
  if (std::abs(v) > model::kMaxAnnotationSeconds) return std::nullopt;
  return static_cast<int64_t>(std::llround(v * 1000));
}

bool is_timed(const model::ClusterObjects& objects) {
  for (const auto& p : objects.pods)
    if (has_time_key(p.annotations)) return true;
  for (const auto& g : objects.pod_groups)
    if (has_time_key(g.annotations)) return true;
  for (const auto& n : objects.nodes)
    if (has_time_key(n.annotations)) return true;
  return false;
}

Timeline make_timeline(model::ClusterObjects objects, std::optional<int64_t> now_ms) {
  Timeline t;
  // Every kind without time (queues, classes, ...) is present from zero;
  // pods, PodGroups and nodes are sorted out below.
  std::vector<model::Pod> pods = std::exchange(objects.pods, {});
  std::vector<model::PodGroup> pod_groups = std::exchange(objects.pod_groups, {});
  std::vector<model::Node> nodes = std::exchange(objects.nodes, {});
  t.initial = std::move(objects);
  if (now_ms) {
    t.start_ms = *now_ms;
  } else {
    int64_t earliest = std::numeric_limits<int64_t>::max();
    for (const auto& p : pods)
      if (p.creation_ms > 0) earliest = std::min(earliest, p.creation_ms);
    for (const auto& g : pod_groups)
      if (g.creation_ms > 0) earliest = std::min(earliest, g.creation_ms);
    t.start_ms = earliest == std::numeric_limits<int64_t>::max() ? 0 : earliest;
  }
  const auto created = [&](int64_t creation_ms) -> std::optional<int64_t> {
    if (creation_ms <= 0) return std::nullopt;
    return std::max<int64_t>(0, creation_ms - t.start_ms);
  };

  // PodGroups first: their pods may take their arrival and duration.
  struct GroupTime {
    int64_t arrival;
    bool explicit_arrival;
    std::optional<int64_t> duration;
  };
  std::unordered_map<std::string, GroupTime> groups;
  // Objects that arrive later stay in their vectors, moved down over those
  // present from zero (which go to `initial`): no second copy of a large
  // input is ever held.
  size_t kept = 0;
  for (auto& g : pod_groups) {
    const std::string what = "PodGroup " + g.key();
    const std::optional<int64_t> annotated = seconds_of(g.annotations, kArrival, what);
    const int64_t at = annotated.value_or(created(g.creation_ms).value_or(0));
    groups[g.key()] = {at, annotated.has_value(), seconds_of(g.annotations, kDuration, what)};
    if (at > 0) {
      t.later.push_back({at, false, static_cast<uint32_t>(kept)});
      if (&pod_groups[kept] != &g) pod_groups[kept] = std::move(g);
      ++kept;
    } else {
      t.initial.pod_groups.push_back(std::move(g));
    }
  }
  pod_groups.resize(kept);
  t.later_groups = std::move(pod_groups);
  kept = 0;
  for (auto& p : pods) {
    const std::string what = "Pod " + p.key();
    const auto group =
        p.group_name.empty() ? groups.end() : groups.find(p.namespace_ + "/" + p.group_name);
    std::optional<int64_t> at = seconds_of(p.annotations, kArrival, what);
    if (!at) at = created(p.creation_ms);
    if (!at && group != groups.end()) at = group->second.arrival;
    std::optional<int64_t> duration = seconds_of(p.annotations, kDuration, what);
    if (!duration && group != groups.end()) duration = group->second.duration;
    const std::string key = p.key();
    // A pod already on a node was bound before the run; it runs from zero.
    if (duration) t.duration_ms[key] = *duration;
    t.arrival_ms[key] = at.value_or(0);
    if (at.value_or(0) > 0 && p.node_name.empty()) {
      t.later.push_back({*at, true, static_cast<uint32_t>(kept)});
      if (&pods[kept] != &p) pods[kept] = std::move(p);
      ++kept;
    } else {
      t.arrival_ms[key] = 0;
      t.initial.pods.push_back(std::move(p));
    }
  }
  pods.resize(kept);
  t.later_pods = std::move(pods);
  std::stable_sort(t.later.begin(), t.later.end(),
                   [](const auto& a, const auto& b) { return a.at_ms < b.at_ms; });

  for (auto& n : nodes) {
    const std::string what = "Node " + n.name;
    const std::optional<int64_t> arrive = seconds_of(n.annotations, kArrival, what);
    for (auto [key, type] :
         {std::pair{kRemoval, NodeEventType::Remove}, std::pair{kCordon, NodeEventType::Cordon},
          std::pair{kUncordon, NodeEventType::Uncordon}})
      if (const auto at = seconds_of(n.annotations, key, what))
        t.node_events.push_back({*at, type, n.name, std::nullopt});
    if (arrive.value_or(0) > 0) {
      t.node_events.push_back({*arrive, NodeEventType::Arrive, n.name, std::move(n)});
    } else {
      t.initial.nodes.push_back(std::move(n));
    }
  }
  std::sort(t.node_events.begin(), t.node_events.end(), [](const auto& a, const auto& b) {
    return std::tie(a.at_ms, a.type, a.node) < std::tie(b.at_ms, b.type, b.node);
  });
  return t;
}

}  // namespace scoria::simulation
