#include "namespace_quotas.h"

#include <scoria/scoria.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <string_view>

namespace resourcequota {

namespace {

using nlohmann::json;
using scoria::api;

constexpr std::string_view kKind = "ResourceQuota";
constexpr std::string_view kRequests = "requests.";

const json* member(const json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  const auto it = object.find(key);
  return it == object.end() || it->is_null() ? nullptr : &*it;
}

std::string text(const json* value) {
  if (value == nullptr) return {};
  if (value->is_string()) return value->get<std::string>();
  return value->is_number() ? value->dump() : std::string();
}

// A resource list in vector units (the host has refused what does not parse).
std::map<std::string, double> amounts(const json* list) {
  std::map<std::string, double> out;
  if (list == nullptr || !list->is_object()) return out;
  for (const auto& [name, value] : list->items())
    if (const auto q = scoria::parse_quantity(text(&value)))
      out.emplace(name, scoria::to_resource_units(name, *q));
  return out;
}

Quota parse_quota(const json& object) {
  Quota q;
  const json* meta = member(object, "metadata");
  q.namespace_ = meta ? text(member(*meta, "namespace")) : std::string();
  if (q.namespace_.empty()) q.namespace_ = "default";  // as the API server defaults it
  q.name = meta ? text(member(*meta, "name")) : std::string();
  const json* status = member(object, "status");
  const json* status_hard = status ? member(*status, "hard") : nullptr;
  q.has_status = status_hard != nullptr;
  if (q.has_status) {
    q.hard = amounts(status_hard);
  } else if (const json* spec = member(object, "spec")) {
    q.hard = amounts(member(*spec, "hard"));
  }
  if (status != nullptr) q.used = amounts(member(*status, "used"));
  return q;
}

// What a quota's resource counts of a pod, as the quota controller counts
// (Kubernetes' PodUsageFunc): pods and count/pods one each, cpu, memory and
// requests.* its requests; limits.* and other objects are not counted here.
struct Counted {
  enum class What { kNothing, kPod, kAnyPod, kRequest } what = What::kNothing;
  size_t dim = 0;
  double factor = 1;  // vector units of the quota's name per unit of the dimension
};

Counted counted(const scoria_session* ssn, const std::string& name) {
  const double scale = scoria::resource_scale(name);
  if (name == "count/pods") return {Counted::What::kAnyPod, 0, scale};
  if (name == "pods") return {Counted::What::kPod, 0, scale};
  if (name.starts_with("limits.") || name.starts_with("count/")) return {};
  const std::string base = name.starts_with(kRequests) ? name.substr(kRequests.size()) : name;
  size_t dim = 0;
  if (api().resource_dim_find(ssn, scoria::str(base), &dim) != SCORIA_OK) return {};
  return {Counted::What::kRequest, dim, scale / scoria::resource_scale(base)};
}

// Resources as a message lists them: "cpu=2,memory=1Gi".
template <class Amount>
std::string listed(const std::vector<std::string>& names, Amount&& amount) {
  std::string out;
  for (const std::string& n : names)
    out += (out.empty() ? "" : ",") + n + "=" + scoria::format_resource(n, amount(n));
  return out;
}

}  // namespace

SessionQuotas::SessionQuotas(const scoria_session* ssn) : ssn_(ssn) {
  read(ssn);
  count_use(ssn);
}

void SessionQuotas::read(const scoria_session* ssn) {
  scoria::for_each_object(ssn, kKind, [&](std::string_view text) {
    const json object = json::parse(text, nullptr, false);
    if (!object.is_object()) return;  // the host hands out what it decoded; never here
    quotas_.push_back(parse_quota(object));
    by_namespace_[quotas_.back().namespace_].push_back(quotas_.size() - 1);
  });
}

void SessionQuotas::count_use(const scoria_session* ssn) {
  // Per quota without a status: each limited resource and what counts for it.
  std::vector<std::vector<std::pair<double*, Counted>>> counters(quotas_.size());
  bool any = false;
  for (size_t k = 0; k < quotas_.size(); ++k) {
    Quota& q = quotas_[k];
    if (q.has_status) continue;
    for (const auto& [name, hard] : q.hard) {
      const Counted c = counted(ssn, name);
      if (c.what == Counted::What::kNothing || q.used.contains(name)) continue;
      counters[k].emplace_back(&q.used[name], c);
      any = true;
    }
  }
  if (!any) return;
  // The pods the namespace holds: placed ones, and those of jobs already
  // enqueued (Volcano's job controller creates a job's pods once its
  // PodGroup is Inqueue; a Pending one's are not there to count).
  const size_t jobs = api().job_count(ssn);
  for (size_t j = 0; j < jobs; ++j) {
    const scoria_job* job = api().job_at(ssn, j);
    const scoria_job_info ji = scoria::info(job);
    const auto quotas = by_namespace_.find(std::string(scoria::view(ji.namespace_)));
    if (quotas == by_namespace_.end()) continue;
    const size_t tasks = api().job_task_count(job);
    for (size_t t = 0; t < tasks; ++t) {
      const scoria_task_info ti = scoria::info(api().job_task_at(job, t));
      if (ti.status == SCORIA_TASK_PENDING && ji.phase == SCORIA_PHASE_PENDING) continue;
      const bool ended = ti.status == SCORIA_TASK_SUCCEEDED || ti.status == SCORIA_TASK_FAILED;
      for (size_t k : quotas->second) {
        for (auto& [used, c] : counters[k]) {
          if (c.what == Counted::What::kAnyPod)
            *used += c.factor;
          else if (ended)
            continue;
          else if (c.what == Counted::What::kPod)
            *used += c.factor;
          else
            *used += ti.resreq[c.dim] * c.factor;
        }
      }
    }
  }
  for (const Quota& q : quotas_) {
    if (q.has_status) continue;
    scoria::log_line(SCORIA_LOG_V4, "ResourceQuota <", q.uid(),
                     "> has no status: spec.hard taken as its limits, its use counted from the "
                     "session's pods");
  }
}

std::optional<std::string> SessionQuotas::refusal(const scoria_job* job) const {
  const scoria_job_info ji = scoria::info(job);
  if (ji.has_min_resources == 0) return std::nullopt;
  const std::string ns(scoria::view(ji.namespace_));
  const auto quotas = by_namespace_.find(ns);
  if (quotas == by_namespace_.end()) return std::nullopt;
  const auto pending = pending_.find(ns);
  for (size_t k : quotas->second) {
    const Quota& q = quotas_[k];
    std::vector<std::string> exceeded;
    std::map<std::string, double> requested;
    for (const auto& [name, hard] : q.hard) {
      size_t dim = 0;
      // Only what the job's minResources asks for is compared (a resource
      // it gives as 0 reads as not asked for: the vector cannot tell).
      if (api().resource_dim_find(ssn_, scoria::str(name), &dim) != SCORIA_OK) continue;
      const double asked = ji.min_resources[dim];
      if (asked == 0) continue;
      requested[name] = asked;
      const auto used = q.used.find(name);
      const double in_use = (used == q.used.end() ? 0 : used->second) +
                            (pending == pending_.end() ? 0 : pending->second[dim]);
      if (in_use + asked > hard) exceeded.push_back(name);
    }
    if (exceeded.empty()) continue;
    const auto amount = [](const std::map<std::string, double>& m) {
      return [&m](const std::string& n) {
        const auto it = m.find(n);
        return it == m.end() ? 0.0 : it->second;
      };
    };
    // Volcano's message, "used" being the quota's own count; what this
    // session enqueued is said apart, so that the numbers add up.
    std::string why =
        "resource quota insufficient, requested: " + listed(exceeded, amount(requested)) +
        ", used: " + listed(exceeded, amount(q.used)) +
        ", limited: " + listed(exceeded, amount(q.hard)) + " (ResourceQuota " + q.uid();
    if (pending != pending_.end()) {
      std::map<std::string, double> held;
      for (const std::string& n : exceeded) {
        size_t dim = 0;
        api().resource_dim_find(ssn_, scoria::str(n), &dim);
        held[n] = pending->second[dim];
      }
      if (std::any_of(held.begin(), held.end(), [](const auto& h) { return h.second > 0; }))
        why += "; jobs enqueued in this session hold " + listed(exceeded, amount(held)) + " of it";
    }
    return why + ")";
  }
  return std::nullopt;
}

void SessionQuotas::enqueued(const scoria_job* job) {
  const scoria_job_info ji = scoria::info(job);
  if (ji.has_min_resources == 0) return;
  const std::string ns(scoria::view(ji.namespace_));
  if (!by_namespace_.contains(ns)) return;
  const size_t dims = scoria::dims(ssn_);
  std::vector<double>& pending = pending_[ns];
  pending.resize(dims, 0.0);
  for (size_t d = 0; d < dims; ++d) pending[d] += ji.min_resources[d];
}

}  // namespace resourcequota
