// policy/v1 PodDisruptionBudget: refused where the API server's validation
// refuses it, so that what the pdb plugin reads is well formed.
#include <algorithm>

#include "decode/kind_decoders.h"
#include "decode/scheduling_terms.h"

namespace scoria::decode {

namespace {

constexpr std::string_view kForms = "write a number of pods (2) or a percentage of them (\"50%\")";

/// minAvailable or maxUnavailable: an int of 0 or more, or "N%" with N a
/// whole number up to 100 (Kubernetes' ValidatePositiveIntOrPercent and
/// IsNotMoreThan100Percent).
std::optional<model::IntOrPercent> int_or_percent(const FieldReader& r, const Node& spec,
                                                  std::string_view key, const FieldPath& parent) {
  const Node& n = FieldReader::get(spec, key);
  if (!FieldReader::present(n)) return std::nullopt;
  const FieldPath at = parent.field(key);
  model::IntOrPercent out;
  if (n.is_number_integer()) {
    out.value = r.int32(n, at);
    if (out.value < 0)
      r.fail(at, std::to_string(out.value) + " is negative; " + std::string(kForms));
    return out;
  }
  if (n.is_number()) r.fail(at, r.text(n, at) + " is not a whole number; " + std::string(kForms));
  if (!n.is_string())
    r.fail(at, "is " + FieldReader::describe(n) + ", not a number or a percentage; " +
                   std::string(kForms));
  const std::string s(n.str());
  const bool digits =
      s.size() >= 2 && s.back() == '%' &&
      std::all_of(s.begin(), s.end() - 1, [](char c) { return c >= '0' && c <= '9'; });
  if (!digits) r.fail(at, quote(s) + " is not a percentage; " + std::string(kForms));
  // Leading zeros are allowed ("050%"), as Go's Atoi reads them.
  const std::string number = s.substr(0, s.size() - 1);
  const size_t first = std::min(number.find_first_not_of('0'), number.size());
  if (number.size() - first > 3 || std::stoi(number) > 100)
    r.fail(at, quote(s) + " is more than 100%; write a percentage from \"0%\" to \"100%\"");
  out.value = std::stoi(number);
  out.percent = true;
  return out;
}

}  // namespace

model::PodDisruptionBudget decode_disruption_budget(const ObjectFields& f) {
  const FieldReader& r = f.r;
  model::PodDisruptionBudget pdb;
  const FieldPath spec_path = f.root.field("spec");
  const Node& spec = r.map_field(f.obj, "spec", f.root);
  const Node& selector = FieldReader::get(spec, "selector");
  if (FieldReader::present(selector))
    pdb.selector = label_selector(r, r.mapping(selector, spec_path.field("selector")),
                                  spec_path.field("selector"));
  pdb.min_available = int_or_percent(r, spec, "minAvailable", spec_path);
  pdb.max_unavailable = int_or_percent(r, spec, "maxUnavailable", spec_path);
  if (pdb.min_available && pdb.max_unavailable)
    r.fail(spec_path.field("maxUnavailable"),
           "cannot be set with minAvailable; give one of minAvailable and maxUnavailable");

  const FieldPath status_path = f.root.field("status");
  const Node& status = r.map_field(f.obj, "status", f.root);
  pdb.has_status = FieldReader::present(FieldReader::get(status, "disruptionsAllowed"));
  pdb.disruptions_allowed = r.count_field(status, "disruptionsAllowed", status_path, 0);
  pdb.current_healthy = r.count_field(status, "currentHealthy", status_path, 0);
  pdb.desired_healthy = r.count_field(status, "desiredHealthy", status_path, 0);
  pdb.expected_pods = r.count_field(status, "expectedPods", status_path, 0);
  const FieldPath disrupted_path = status_path.field("disruptedPods");
  const Node& disrupted = r.map_field(status, "disruptedPods", status_path);
  for (const input::NodeEntry& e : disrupted.entries()) {
    const FieldPath entry = disrupted_path.field(e.key);
    const std::string when = r.text(e.value, entry);
    const std::optional<int64_t> ms = FieldReader::parse_rfc3339(when);
    if (!ms)
      r.fail(entry, quote(when) + " is not an RFC 3339 time; write e.g. \"2024-05-01T12:00:00Z\"");
    pdb.disrupted_pods.emplace(e.key, *ms);
  }
  return pdb;
}

}  // namespace scoria::decode
