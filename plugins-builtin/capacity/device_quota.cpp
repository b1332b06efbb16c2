#include "device_quota.h"

#include <scoria/quantity.hpp>
#include <scoria/scoria.hpp>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string_view>
#include <tuple>
#include <utility>

namespace capacity {

namespace {

using scoria::api;

constexpr std::string_view kCountPrefix = "deviceclass/";
constexpr std::string_view kCapacitySep = ".deviceclass/";
// Allocated, Binding, Bound, Running: Volcano's AllocatedStatus.
constexpr uint32_t kHolding =
    SCORIA_TASK_ALLOCATED | SCORIA_TASK_BINDING | SCORIA_TASK_BOUND | SCORIA_TASK_RUNNING;

std::optional<double> quantity_of(const nlohmann::json& v) {
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) return scoria::parse_quantity(v.get<std::string>());
  return std::nullopt;
}

// Volcano's parseDRAResourceList: the device-class entries of a resource
// list; the others are the plugin's ordinary resources.
DeviceAmounts parse_list(const nlohmann::json* list) {
  DeviceAmounts out;
  if (list == nullptr || !list->is_object()) return out;
  for (const auto& [name, value] : list->items()) {
    const std::optional<double> q = quantity_of(value);
    if (!q) continue;
    const std::string_view n = name;
    if (const size_t at = n.find(kCapacitySep); at != std::string_view::npos && at > 0) {
      const std::string_view dim = n.substr(0, at);
      const std::string_view device_class = n.substr(at + kCapacitySep.size());
      if (device_class.empty()) continue;
      out[std::string(device_class)].capacity[std::string(dim)] = *q;
    } else if (n.starts_with(kCountPrefix) && n.size() > kCountPrefix.size()) {
      // resource.Quantity.Value(): whole devices, rounded up.
      out[std::string(n.substr(kCountPrefix.size()))].count = std::ceil(*q);
    }
  }
  return out;
}

const nlohmann::json* member(const nlohmann::json& obj, const char* key) {
  if (!obj.is_object()) return nullptr;
  const auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

void add_all(DeviceAmounts& into, const DeviceAmounts& from, double sign) {
  for (const auto& [device_class, amount] : from) into[device_class].add(amount, sign);
}

// l <= r, as Kubernetes compares quantities (exact for the whole numbers
// devices and byte counts are).
bool within(double l, double r) { return l <= r || std::fabs(l - r) < 1e-9; }

}  // namespace

void DeviceAmount::add(const DeviceAmount& other, double sign) {
  count += sign * other.count;
  // Volcano's Sub stops at zero.
  if (count < 0) count = 0;
  for (const auto& [dim, q] : other.capacity) {
    double& v = capacity[dim];
    v = std::max(0.0, v + sign * q);
  }
}

bool DeviceQuota::open(scoria_session* ssn, bool consumable) {
  ssn_ = ssn;
  consumable_ = consumable;
  active_ = false;
  queues_.clear();
  if (!SCORIA_HOST_HAS(&api(), session_task_device_demands) ||
      !SCORIA_HOST_HAS(&api(), queue_object_json))
    return false;
  const size_t n = api().queue_count(ssn);
  queues_.resize(n);
  for (size_t q = 0; q < n; ++q) {
    const std::string_view text = scoria::view(api().queue_object_json(api().queue_at(ssn, q)));
    if (text.empty()) continue;
    const nlohmann::json doc = nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
    const nlohmann::json* spec = member(doc, "spec");
    if (spec == nullptr) continue;
    Queue queue;
    queue.capability = parse_list(member(*spec, "capability"));
    queue.deserved = parse_list(member(*spec, "deserved"));
    if (const nlohmann::json* g = member(*spec, "guarantee"))
      queue.guarantee = parse_list(member(*g, "resource"));
    if (queue.capability.empty() && queue.deserved.empty() && queue.guarantee.empty()) continue;
    queues_[q] = std::move(queue);
    active_ = true;
  }
  return active_;
}

std::vector<const scoria_task*> DeviceQuota::holding() const {
  std::vector<const scoria_task*> out;
  if (!active_) return out;
  const size_t n =
      api().session_tasks_with_features(ssn_, SCORIA_TASK_FEATURE_DEVICE_CLAIMS, nullptr, 0);
  std::vector<const scoria_task*> tasks(n);
  api().session_tasks_with_features(ssn_, SCORIA_TASK_FEATURE_DEVICE_CLAIMS, tasks.data(), n);
  for (const scoria_task* t : tasks)
    if ((scoria::info(t).status & kHolding) != 0) out.push_back(t);
  return out;
}

std::map<std::string, DeviceAmounts, std::less<>> DeviceQuota::by_claim(
    const scoria_task* task) const {
  std::map<std::string, DeviceAmounts, std::less<>> out;
  size_t count = 0;
  const scoria_device_demand* d = api().session_task_device_demands(ssn_, task, &count);
  for (size_t i = 0; i < count; ++i) {
    DeviceAmount& a =
        out[std::string(scoria::view(d[i].claim))][std::string(scoria::view(d[i].device_class))];
    const std::string_view dim = scoria::view(d[i].dimension);
    if (dim.empty())
      a.count += d[i].amount;
    else if (consumable_)
      a.capacity[std::string(dim)] += d[i].amount;
  }
  return out;
}

DeviceAmounts DeviceQuota::not_charged(const Queue& queue, const scoria_task* task) const {
  DeviceAmounts out;
  for (const auto& [claim, amounts] : by_claim(task)) {
    const auto ref = queue.claim_refs.find(claim);
    if (ref == queue.claim_refs.end() || ref->second <= 0) add_all(out, amounts, 1);
  }
  return out;
}

// Volcano's checkDRAAllocatable.
bool DeviceQuota::fits(const Queue& queue, const DeviceAmounts& ask, bool with_inqueue) const {
  for (const auto& [device_class, request] : ask) {
    const auto cap = queue.capability.find(device_class);
    if (cap == queue.capability.end()) continue;  // no limit on this class
    const auto held = queue.allocated.find(device_class);
    const auto admitted = with_inqueue ? queue.inqueue.find(device_class) : queue.inqueue.end();
    const auto amount_of = [](const DeviceAmounts& m, DeviceAmounts::const_iterator it,
                              std::string_view dim) -> double {
      if (it == m.end()) return 0;
      if (dim.empty()) return it->second.count;
      const auto v = it->second.capacity.find(dim);
      return v == it->second.capacity.end() ? 0 : v->second;
    };
    const double future = amount_of(queue.allocated, held, {}) +
                          amount_of(queue.inqueue, admitted, {}) + request.count;
    if (cap->second.count > 0 && !within(future, cap->second.count)) return false;
    if (!consumable_) continue;
    for (const auto& [dim, q] : request.capacity) {
      const auto limit = cap->second.capacity.find(dim);
      if (limit == cap->second.capacity.end()) return false;
      const double used =
          amount_of(queue.allocated, held, dim) + amount_of(queue.inqueue, admitted, dim) + q;
      if (!within(used, limit->second)) return false;
    }
  }
  return true;
}

bool DeviceQuota::allocatable(size_t q, const scoria_task* task) const {
  if (!active_ || q >= queues_.size() || !queues_[q]) return true;
  const scoria_task_info ti = scoria::info(task);
  if ((ti.features & SCORIA_TASK_FEATURE_DEVICE_CLAIMS) == 0) return true;
  return fits(*queues_[q], not_charged(*queues_[q], task), /*with_inqueue=*/false);
}

// Volcano's GetMinDRAResources.
DeviceAmounts DeviceQuota::job_minimum(const scoria_job* job) const {
  DeviceAmounts out;
  const size_t n = api().job_task_count(job);
  const auto asks = [&](const scoria_task* t) {
    DeviceAmounts sum;
    if ((scoria::info(t).features & SCORIA_TASK_FEATURE_DEVICE_CLAIMS) == 0) return sum;
    for (const auto& [claim, amounts] : by_claim(t)) add_all(sum, amounts, 1);
    return sum;
  };
  const std::vector<scoria::RoleMinimum> roles = scoria::min_task_members(job);
  if (roles.empty()) {
    const int32_t min = scoria::info(job).min_available;
    if (min <= 0) return out;
    std::vector<std::pair<const scoria_task*, DeviceAmounts>> tasks;
    for (size_t i = 0; i < n; ++i) {
      const scoria_task* t = api().job_task_at(job, i);
      DeviceAmounts a = asks(t);
      if (!a.empty()) tasks.emplace_back(t, std::move(a));
    }
    const auto key = [](const scoria_task* t) {
      const scoria_task_info ti = scoria::info(t);
      return std::tuple(scoria::view(ti.namespace_), scoria::view(ti.name), scoria::view(ti.uid));
    };
    std::sort(tasks.begin(), tasks.end(),
              [&](const auto& l, const auto& r) { return key(l.first) < key(r.first); });
    for (size_t i = 0; i < tasks.size() && i < static_cast<size_t>(min); ++i)
      add_all(out, tasks[i].second, 1);
    return out;
  }
  // Each role with a minimum: its first task that asks for devices, times
  // the minimum.
  for (const scoria::RoleMinimum& role : roles) {
    if (role.min <= 0) continue;
    for (size_t i = 0; i < n; ++i) {
      const scoria_task* t = api().job_task_at(job, i);
      if (scoria::view(scoria::info(t).role) != role.role) continue;
      const DeviceAmounts a = asks(t);
      if (a.empty()) continue;
      add_all(out, a, role.min);
      break;
    }
  }
  return out;
}

bool DeviceQuota::admits(size_t q, const scoria_job* job) const {
  if (!active_ || q >= queues_.size() || !queues_[q]) return true;
  const DeviceAmounts min = job_minimum(job);
  return min.empty() || fits(*queues_[q], min, /*with_inqueue=*/true);
}

void DeviceQuota::enqueued(size_t q, const scoria_job* job) {
  if (!active_ || q >= queues_.size() || !queues_[q]) return;
  add_all(queues_[q]->inqueue, job_minimum(job), 1);
}

// Volcano's addTaskDRAAllocated and removeTaskDRAAllocated: a claim is
// charged when the first of the queue's tasks naming it is placed, and
// given back with the last.
void DeviceQuota::allocate(size_t q, const scoria_task* task, int sign) {
  if (!active_ || q >= queues_.size() || !queues_[q]) return;
  if ((scoria::info(task).features & SCORIA_TASK_FEATURE_DEVICE_CLAIMS) == 0) return;
  Queue& queue = *queues_[q];
  for (const auto& [claim, amounts] : by_claim(task)) {
    int& refs = queue.claim_refs[claim];
    if (sign > 0) {
      if (refs++ == 0) add_all(queue.allocated, amounts, 1);
    } else if (refs <= 1) {
      add_all(queue.allocated, amounts, -1);
      queue.claim_refs.erase(claim);
    } else {
      --refs;
    }
  }
}

}  // namespace capacity
