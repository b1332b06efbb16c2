// scheduling.volcano.sh/v1beta1 PodGroup.
#include "decode/kind_decoders.h"
#include "decode/scheduling_terms.h"
#include "input/tree_json.h"

namespace scoria::decode {

namespace {

model::PodGroupPhase pod_group_phase(const FieldReader& r, const std::string& phase,
                                     const FieldPath& at) {
  if (phase.empty() || phase == "Pending") return model::PodGroupPhase::Pending;
  if (phase == "Inqueue") return model::PodGroupPhase::Inqueue;
  if (phase == "Running") return model::PodGroupPhase::Running;
  if (phase == "Unknown") return model::PodGroupPhase::Unknown;
  if (phase == "Completed") return model::PodGroupPhase::Completed;
  r.fail(at, quote(phase) +
                 " is not a PodGroup phase; use Pending, Inqueue, Running, Unknown or Completed");
}

/// `key` of `m` when a string, "" when absent; anything else throws as
/// nlohmann::json's value(key, "") does (it read these once).
std::string string_or_empty(const Node& m, std::string_view key) {
  const Node* v = m.find(key);
  if (v == nullptr) return {};
  if (!v->is_string()) return input::to_json(*v).get<std::string>();
  return std::string(v->str());
}

/// networkTopology of `spec` (a PodGroup's, or a sub-group policy's),
/// refused where Volcano's CRD and admission refuse it: a mode other than
/// hard or soft, a negative highestTierAllowed, both highestTierAllowed and
/// highestTierName.
std::optional<model::NetworkTopology> network_topology(const FieldReader& r, const Node& spec,
                                                       const FieldPath& spec_path) {
  const Node& n = FieldReader::get(spec, "networkTopology");
  if (!FieldReader::present(n)) return std::nullopt;
  const FieldPath at = spec_path.field("networkTopology");
  const Node& m = r.mapping(n, at);
  model::NetworkTopology t;
  const std::string mode = r.text_field(m, "mode", at);
  if (mode == "soft")
    t.mode = model::NetworkTopology::Mode::Soft;
  else if (!mode.empty() && mode != "hard")
    r.fail(at.field("mode"), quote(mode) + " is not a network topology mode; write hard or soft");
  const Node& tier = FieldReader::get(m, "highestTierAllowed");
  if (FieldReader::present(tier)) {
    const int32_t v = r.int32(tier, at.field("highestTierAllowed"));
    if (v < 0)
      r.fail(at.field("highestTierAllowed"),
             std::to_string(v) + " is negative; write a tier, 0 or more");
    t.highest_tier_allowed = v;
  }
  t.highest_tier_name = r.text_field(m, "highestTierName", at);
  if (t.highest_tier_allowed && !t.highest_tier_name.empty())
    r.fail(at.field("highestTierName"),
           "cannot be set with highestTierAllowed; give one of highestTierAllowed and "
           "highestTierName");
  return t;
}

/// One spec.subGroupPolicy entry, refused where Volcano's CRD refuses it:
/// a subGroupSize below 1, a negative minSubGroups, matchLabelKeys that are
/// not strings, and whatever its networkTopology or labelSelector gets
/// wrong.
model::SubGroupPolicy sub_group_policy(const FieldReader& r, const Node& m, const FieldPath& at) {
  model::SubGroupPolicy p;
  p.name = r.text_field(m, "name", at);
  if (const std::optional<int32_t> size = r.int_field(m, "subGroupSize", at)) {
    if (*size < 1)
      r.fail(
          at.field("subGroupSize"),
          std::to_string(*size) + " is below 1; write how many pods make a sub-group, 1 or more");
    p.sub_group_size = *size;
  }
  if (const std::optional<int32_t> min = r.int_field(m, "minSubGroups", at)) {
    if (*min < 0)
      r.fail(at.field("minSubGroups"), std::to_string(*min) + " is negative; write 0 or more");
    p.min_sub_groups = *min;
  }
  if (const Node& sel = FieldReader::get(m, "labelSelector"); FieldReader::present(sel))
    p.selector =
        label_selector(r, r.mapping(sel, at.field("labelSelector")), at.field("labelSelector"));
  r.each(m, "matchLabelKeys", at, [&](const Node& key, const FieldPath& key_at) {
    if (!key.is_string())
      r.fail(key_at, "is " + FieldReader::describe(key) + ", not a label key; write a string");
    p.match_label_keys.emplace_back(key.str());
  });
  p.network_topology = network_topology(r, m, at);
  return p;
}

}  // namespace

void read_pod_group_metadata(const ObjectFields& f, model::PodGroup& g) {
  const FieldReader& r = f.r;
  g.annotations = r.string_map(f.meta, "annotations", f.meta_path);
  g.preemptable = read_preemptable(r, g.annotations, r.string_map(f.meta, "labels", f.meta_path),
                                   f.meta_path, false);
  g.creation_ms = r.timestamp(f.meta, "creationTimestamp", f.meta_path);
  g.uid = r.text_field(f.meta, "uid", f.meta_path);
}

model::PodGroup decode_pod_group(const ObjectFields& f) {
  const FieldReader& r = f.r;
  model::PodGroup g;
  read_pod_group_metadata(f, g);
  const FieldPath spec_path = f.root.field("spec");
  const Node& spec = r.map_field(f.obj, "spec", f.root);
  g.min_member = r.count_field(spec, "minMember", spec_path, 1);
  const FieldPath mtm_path = spec_path.field("minTaskMember");
  const Node& mtm = r.map_field(spec, "minTaskMember", spec_path);
  for (const input::NodeEntry& e : mtm.entries()) {
    const FieldPath entry = mtm_path.field(e.key);
    const int32_t n = r.int32(e.value, entry);
    if (n < 0) r.fail(entry, std::to_string(n) + " is negative; write 0 or more");
    g.min_task_member.emplace(e.key, n);
  }
  const Node& min_res = FieldReader::get(spec, "minResources");
  g.has_min_resources = FieldReader::present(min_res);
  g.min_resources = r.resources(min_res, spec_path.field("minResources"));
  const std::string queue = r.text_field(spec, "queue", spec_path);
  g.queue = queue.empty() ? std::string("default") : queue;
  g.priority_class_name = r.text_field(spec, "priorityClassName", spec_path);
  g.network_topology = network_topology(r, spec, spec_path);
  r.each_map(spec, "subGroupPolicy", spec_path, [&](const Node& m, const FieldPath& at) {
    g.sub_group_policy.push_back(sub_group_policy(r, m, at));
  });
  const FieldPath status_path = f.root.field("status");
  const Node& status = r.map_field(f.obj, "status", f.root);
  g.phase =
      pod_group_phase(r, r.text_field(status, "phase", status_path), status_path.field("phase"));
  // What the scheduler last reported (it writes the conditions): read
  // leniently, as it decides nothing.
  const Node& conditions = FieldReader::get(status, "conditions");
  if (conditions.is_array()) {
    for (const Node& c : conditions.items()) {
      if (c.is_object() && string_or_empty(c, "type") == "Unschedulable" &&
          string_or_empty(c, "status") == "True") {
        const Node* message = c.find("message");
        if (message != nullptr && message->is_string()) g.unschedulable = message->str();
      }
    }
  }
  return g;
}

}  // namespace scoria::decode
