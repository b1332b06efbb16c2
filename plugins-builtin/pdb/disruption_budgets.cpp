#include "disruption_budgets.h"

#include <scoria/scoria.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <chrono>

namespace pdb {

namespace {

using nlohmann::json;
using scoria::api;

constexpr std::string_view kKind = "PodDisruptionBudget";
// How long the disruption controller counts a pod it was told was evicted
// as gone (kube's DeletionTimeout).
constexpr int64_t kDeletionTimeoutMs = 2 * 60 * 1000;

const json* member(const json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  const auto it = object.find(key);
  return it == object.end() || it->is_null() ? nullptr : &*it;
}

std::string text(const json* value) {
  return value != nullptr && value->is_string() ? value->get<std::string>() : std::string();
}

// An int, or "N%" (the host has refused every other form).
std::optional<IntOrPercent> int_or_percent(const json* value) {
  if (value == nullptr) return std::nullopt;
  if (value->is_number_integer()) return IntOrPercent{value->get<int64_t>(), false};
  const std::string s = text(value);
  int64_t n = 0;
  if (s.size() < 2 || s.back() != '%') return std::nullopt;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size() - 1, n);
  if (ec != std::errc() || end != s.data() + s.size() - 1) return std::nullopt;
  return IntOrPercent{n, true};
}

Budget parse_budget(const json& object) {
  Budget b;
  const json* meta = member(object, "metadata");
  b.namespace_ = meta ? text(member(*meta, "namespace")) : std::string();
  if (b.namespace_.empty()) b.namespace_ = "default";  // as the API server defaults it
  b.name = meta ? text(member(*meta, "name")) : std::string();
  const json* spec = member(object, "spec");
  if (spec != nullptr) {
    b.selector = kube::parse_label_selector(member(*spec, "selector"));
    b.min_available = int_or_percent(member(*spec, "minAvailable"));
    b.max_unavailable = int_or_percent(member(*spec, "maxUnavailable"));
  }
  const json* status = member(object, "status");
  if (status == nullptr) return b;
  if (const json* allowed = member(*status, "disruptionsAllowed");
      allowed != nullptr && allowed->is_number_integer()) {
    b.has_status = true;
    b.allowed = allowed->get<int64_t>();
  }
  if (const json* disrupted = member(*status, "disruptedPods");
      disrupted != nullptr && disrupted->is_object())
    for (const auto& [pod, when] : disrupted->items())
      b.disrupted.emplace(pod, scoria::parse_rfc3339(text(&when)).value_or(0));
  return b;
}

}  // namespace

int64_t computed_allowed(const Budget& b, int64_t expected, int64_t healthy) {
  int64_t desired = 1;  // policy/v1 defaults minAvailable to 1 when neither is set
  if (b.max_unavailable)
    desired = std::max<int64_t>(0, expected - b.max_unavailable->of(expected));
  else if (b.min_available)
    desired = b.min_available->of(expected);
  const int64_t allowed = healthy - desired;
  return expected <= 0 || allowed <= 0 ? 0 : allowed;
}

SessionBudgets::SessionBudgets(const scoria_session* ssn) : now_ms_(scoria::now_ms(ssn)) {
  read(ssn);
  compute_missing(ssn);
}

void SessionBudgets::read(const scoria_session* ssn) {
  scoria::for_each_object(ssn, kKind, [&](std::string_view text) {
    const json object = json::parse(text, nullptr, false);
    if (!object.is_object()) return;  // the host hands out what it decoded; never here
    budgets_.push_back(parse_budget(object));
    by_namespace_[budgets_.back().namespace_].push_back(budgets_.size() - 1);
  });
}

void SessionBudgets::compute_missing(const scoria_session* ssn) {
  if (std::all_of(budgets_.begin(), budgets_.end(), [](const Budget& b) { return b.has_status; }))
    return;
  // The disruption controller's count over the pods each budget selects:
  // all of them expected, the running ones healthy unless evicted lately.
  std::vector<int64_t> expected(budgets_.size()), healthy(budgets_.size());
  const size_t jobs = api().job_count(ssn);
  for (size_t j = 0; j < jobs; ++j) {
    const scoria_job* job = api().job_at(ssn, j);
    const size_t tasks = api().job_task_count(job);
    for (size_t t = 0; t < tasks; ++t) {
      const scoria_task* task = api().job_task_at(job, t);
      const scoria_task_info ti = scoria::info(task);
      each_selecting(task, scoria::view(ti.namespace_), [&](Budget& b) {
        if (b.has_status) return;
        const size_t k = static_cast<size_t>(&b - budgets_.data());
        ++expected[k];
        const auto disrupted = b.disrupted.find(scoria::view(ti.name));
        const bool gone =
            disrupted != b.disrupted.end() && disrupted->second + kDeletionTimeoutMs > now_ms_;
        if (ti.status == SCORIA_TASK_RUNNING && !gone) ++healthy[k];
      });
    }
  }
  for (size_t k = 0; k < budgets_.size(); ++k) {
    Budget& b = budgets_[k];
    if (b.has_status) continue;
    b.allowed = computed_allowed(b, expected[k], healthy[k]);
    scoria::log_line(SCORIA_LOG_V4, "PodDisruptionBudget <", b.uid(),
                     "> has no status: ", expected[k], " pods expected, ", healthy[k], " healthy, ",
                     b.allowed, " disruptions allowed");
  }
}

template <class F>
void SessionBudgets::each_selecting(const scoria_task* task, std::string_view ns, F&& f) {
  const auto it = by_namespace_.find(std::string(ns));
  if (it == by_namespace_.end()) return;
  for (size_t k : it->second) {
    Budget& b = budgets_[k];
    // A nil or empty selector selects nothing (Volcano's rule, and the
    // policy/v1 API's), nor does any selector a pod with no labels.
    if (!b.selector.present || b.selector.empty() || !b.selector.matches(task)) continue;
    if (b.selector.matches_unlabelled() && unlabelled(task, scoria::info(task).index)) continue;
    f(b);
  }
}

bool SessionBudgets::unlabelled(const scoria_task* task, uint32_t index) {
  const auto [it, fresh] = unlabelled_.try_emplace(index, false);
  if (!fresh) return it->second;
  // Only selectors made of NotIn and DoesNotExist can select a pod that has
  // no labels; the pod's JSON tells, once per session.
  const json pod = json::parse(scoria::view(api().task_object_json(task)), nullptr, false);
  const json* meta = member(pod, "metadata");
  const json* labels = meta != nullptr ? member(*meta, "labels") : nullptr;
  it->second = labels == nullptr || !labels->is_object() || labels->empty();
  return it->second;
}

void SessionBudgets::filter(const scoria_task* const* candidates, size_t count, uint8_t* selected) {
  std::vector<int64_t> left(budgets_.size());
  for (size_t k = 0; k < budgets_.size(); ++k) left[k] = budgets_[k].allowed - budgets_[k].evicted;
  for (size_t i = 0; i < count; ++i) {
    const scoria_task_info ti = scoria::info(candidates[i]);
    const std::string_view name = scoria::view(ti.name);
    // Volcano's rule, kept: a pod with no labels is no victim at all.
    if (unlabelled(candidates[i], ti.index)) {
      scoria::log_line(SCORIA_LOG_V4, "<", scoria::view(ti.uid),
                       "> has no labels; not a victim while pdb is enabled");
      continue;
    }
    const Budget* broken = nullptr;
    each_selecting(candidates[i], scoria::view(ti.namespace_), [&](Budget& b) {
      // The API server has counted its eviction already.
      if (b.disrupted.contains(name)) return;
      if (--left[static_cast<size_t>(&b - budgets_.data())] < 0 && broken == nullptr) broken = &b;
    });
    if (broken == nullptr) {
      selected[i] = 1;
      continue;
    }
    scoria::log_line(SCORIA_LOG_V4, "<", scoria::view(ti.uid), "> would take PodDisruptionBudget <",
                     broken->uid(), "> below what it allows; not a victim");
  }
}

void SessionBudgets::count_eviction(const scoria_task* task, int delta) {
  const scoria_task_info ti = scoria::info(task);
  const std::string_view name = scoria::view(ti.name);
  each_selecting(task, scoria::view(ti.namespace_), [&](Budget& b) {
    if (!b.disrupted.contains(name)) b.evicted += delta;
  });
}

}  // namespace pdb
