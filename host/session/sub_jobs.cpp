#include "session/sub_jobs.h"

#include <algorithm>
#include <charconv>
#include <tuple>
#include <unordered_map>

#include "model/label_selector.h"

namespace scoria::session {

namespace {

// Kubernetes' rand.SafeEncodeString: each character to one of an alphabet
// without vowels (so that no word is spelled), by its code.
std::string safe_encode(std::string_view s) {
  static constexpr std::string_view kAlphanums = "bcdfghjklmnpqrstvwxz2456789";
  std::string out;
  out.reserve(s.size());
  for (const char c : s)
    out.push_back(kAlphanums[static_cast<unsigned char>(c) % kAlphanums.size()]);
  return out;
}

uint32_t fnv1a32(std::string_view s) {
  uint32_t h = 2166136261u;
  for (const char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 16777619u;
  }
  return h;
}

// strconv.Atoi: an optional sign, then decimal digits and nothing else.
int64_t match_index(std::string_view v) {
  if (v.size() > 1 && v.front() == '+' && v[1] != '-') v.remove_prefix(1);
  int64_t n = 0;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  return ec == std::errc() && end == v.data() + v.size() ? n : 0;
}

}  // namespace

std::vector<std::string> sub_job_match_values(const model::SubGroupPolicy& policy,
                                              const model::Pod& pod) {
  if (policy.selector && !model::selects(*policy.selector, pod.labels)) return {};
  std::vector<std::string> values;
  values.reserve(policy.match_label_keys.size());
  for (const std::string& key : policy.match_label_keys) {
    const auto it = pod.labels.find(key);
    if (it == pod.labels.end() || it->second.empty()) return {};
    values.push_back(it->second);
  }
  return values;
}

std::string sub_job_uid(std::string_view job, std::string_view policy,
                        std::span<const std::string> values) {
  std::string id;
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) id += '-';
    id += values[i];
  }
  if (id.size() > 128) id = safe_encode(std::to_string(fnv1a32(id)));
  return std::string(job) + "/" + std::string(policy) + "-" + id;
}

SubJobs make_sub_jobs(const model::PodGroup& group, std::string_view job,
                      std::span<const model::Pod* const> pods,
                      std::span<const int32_t> priorities) {
  SubJobs out;
  out.of_pod.resize(pods.size());
  std::unordered_map<std::string, uint32_t> by_uid;
  // The sub-job under `uid`, added with only its uid when new; whether it was.
  const auto find_or_add = [&](std::string uid) -> std::pair<uint32_t, bool> {
    const auto [it, fresh] = by_uid.try_emplace(uid, static_cast<uint32_t>(out.sub_jobs.size()));
    if (fresh) out.sub_jobs.emplace_back().uid = std::move(uid);
    return {it->second, fresh};
  };
  for (size_t p = 0; p < pods.size(); ++p) {
    uint32_t at = UINT32_MAX;
    for (size_t i = 0; i < group.sub_group_policy.size() && at == UINT32_MAX; ++i) {
      const model::SubGroupPolicy& policy = group.sub_group_policy[i];
      const std::vector<std::string> values = sub_job_match_values(policy, *pods[p]);
      if (values.empty()) continue;
      bool fresh = false;
      std::tie(at, fresh) = find_or_add(sub_job_uid(job, policy.name, values));
      if (!fresh) continue;
      FormedSubJob& s = out.sub_jobs[at];
      s.gid = std::string(job) + "/" + policy.name;
      s.policy = static_cast<int32_t>(i);
      s.min_available = policy.sub_group_size;
      s.match_index = match_index(values.front());
    }
    if (at == UINT32_MAX) {
      bool fresh = false;
      std::tie(at, fresh) = find_or_add(std::string(job));
      if (fresh) {
        FormedSubJob& s = out.sub_jobs[at];
        s.gid = s.uid;
        s.min_available = group.sub_group_policy.empty() ? group.min_member : 1;
      }
    }
    FormedSubJob& s = out.sub_jobs[at];
    s.members.push_back(static_cast<uint32_t>(p));
    if (p < priorities.size()) s.priority = std::max(s.priority, priorities[p]);
    out.of_pod[p] = at;
  }
  return out;
}

}  // namespace scoria::session
