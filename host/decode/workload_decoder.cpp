// Kubernetes' own gangs (KEP-4671): scheduling.k8s.io Workload and
// PodGroup, as v1beta1 (Kubernetes 1.37) and v1alpha2 (1.36) write them.
// The two versions differ in two fields' shapes (the template reference,
// disruptionMode); both are read into the same model.
#include <algorithm>

#include "decode/kind_decoders.h"
#include "decode/object_names.h"

namespace scoria::decode {

namespace {

constexpr std::string_view kQueueNameKey = "scheduling.volcano.sh/queue-name";
constexpr int32_t kMaxPriority = 1000000000;  // as kube-apiserver's validation

bool is_v1alpha2(std::string_view api_version) { return api_version.ends_with("/v1alpha2"); }

/// schedulingPolicy: exactly one of basic and gang; the gang's minCount
/// (1 or more) is the group's minMember, basic schedules pods one by one.
/// True for basic.
bool read_policy(const FieldReader& r, const Node& owner, const FieldPath& owner_path,
                 model::PodGroup& g) {
  const FieldPath at = owner_path.field("schedulingPolicy");
  const Node& policy = FieldReader::get(owner, "schedulingPolicy");
  if (!FieldReader::present(policy))
    r.fail(at, "is missing; write basic: {} or gang: {minCount: N}");
  const Node& m = r.mapping(policy, at);
  const bool basic = FieldReader::present(FieldReader::get(m, "basic"));
  const Node& gang = FieldReader::get(m, "gang");
  if (basic == FieldReader::present(gang)) r.fail(at, "must give exactly one of basic and gang");
  if (basic) {
    r.mapping(FieldReader::get(m, "basic"), at.field("basic"));
    g.min_member = 1;
    return true;
  }
  const FieldPath gang_at = at.field("gang");
  const std::optional<int32_t> n = r.int_field(r.mapping(gang, gang_at), "minCount", gang_at);
  if (!n) r.fail(gang_at.field("minCount"), "is missing; write how many pods the gang needs");
  if (*n < 1)
    r.fail(gang_at.field("minCount"),
           std::to_string(*n) + " is below 1; write how many pods the gang needs, 1 or more");
  g.min_member = *n;
  return false;
}

/// disruptionMode: v1beta1's {single: {}} or {all: {}}, v1alpha2's "Pod" or
/// "PodGroup"; true when the group is only disrupted whole.
bool disrupt_whole(const FieldReader& r, const Node& owner, const FieldPath& owner_path,
                   bool v1alpha2) {
  const FieldPath at = owner_path.field("disruptionMode");
  const Node& mode = FieldReader::get(owner, "disruptionMode");
  if (!FieldReader::present(mode)) return false;
  if (v1alpha2) {
    const std::string s = r.text(mode, at);
    if (s != "Pod" && s != "PodGroup")
      r.fail(at, quote(s) + " is not a disruption mode; write Pod or PodGroup");
    return s == "PodGroup";
  }
  if (mode.is_string())
    r.fail(at, quote(std::string(mode.str())) +
                   " is v1alpha2's form; in v1beta1 write single: {} or all: {}");
  const Node& m = r.mapping(mode, at);
  const bool single = FieldReader::present(FieldReader::get(m, "single"));
  const bool all = FieldReader::present(FieldReader::get(m, "all"));
  if (single == all) r.fail(at, "must give exactly one of single: {} and all: {}");
  return all;
}

/// priorityClassName, priority and preemptionPolicy of a template or group.
void read_priority(const FieldReader& r, const Node& owner, const FieldPath& owner_path,
                   model::PodGroup& g) {
  g.priority_class_name = r.text_field(owner, "priorityClassName", owner_path);
  if (const std::optional<int32_t> p = r.int_field(owner, "priority", owner_path)) {
    if (*p > kMaxPriority)
      r.fail(owner_path.field("priority"),
             std::to_string(*p) + " is above " + std::to_string(kMaxPriority) +
                 ", the highest priority a user may give; use a PriorityClass above it");
    g.priority = *p;
  }
  const std::string preemption = r.text_field(owner, "preemptionPolicy", owner_path);
  if (!preemption.empty() && preemption != "Never" && preemption != "PreemptLowerPriority")
    r.fail(owner_path.field("preemptionPolicy"),
           quote(preemption) + " is not a preemption policy; write Never or PreemptLowerPriority");
}

/// What a PodGroup's spec and a Workload's template share: the policy, the
/// disruption mode (all refused with basic, as kube-apiserver refuses it)
/// and the priority.
void read_group_spec(const FieldReader& r, const Node& owner, const FieldPath& owner_path,
                     bool v1alpha2, model::PodGroup& g) {
  const bool basic = read_policy(r, owner, owner_path, g);
  g.disrupt_whole = disrupt_whole(r, owner, owner_path, v1alpha2);
  if (g.disrupt_whole && basic)
    r.fail(owner_path.field("disruptionMode"),
           "all is not supported with the basic scheduling policy; use gang, or single");
  read_priority(r, owner, owner_path, g);
}

/// A reference's name: present, and a DNS subdomain (or label).
void check_name(const FieldReader& r, const Node& m, std::string_view key, const FieldPath& at,
                bool label) {
  const std::string name = r.text_field(m, key, at);
  if (name.empty()) r.fail(at.field(key), "is missing; name it");
  if (auto why = label ? label_error(name) : subdomain_error(name)) r.fail(at.field(key), *why);
}

}  // namespace

model::PodGroup decode_native_pod_group(const ObjectFields& f, std::string_view api_version) {
  const FieldReader& r = f.r;
  const bool v1alpha2 = is_v1alpha2(api_version);
  model::PodGroup g;
  g.native = true;
  read_pod_group_metadata(f, g);
  if (auto q = g.annotations.find(std::string(kQueueNameKey));
      q != g.annotations.end() && !q->second.empty())
    g.queue = q->second;

  const FieldPath spec_path = f.root.field("spec");
  const Node& spec = r.map_field(f.obj, "spec", f.root);
  read_group_spec(r, spec, spec_path, v1alpha2, g);
  const char* ref_key = v1alpha2 ? "podGroupTemplateRef" : "workloadRef";
  if (const Node& ref = FieldReader::get(spec, ref_key); FieldReader::present(ref)) {
    const FieldPath ref_at = spec_path.field(ref_key);
    const Node* m = &r.mapping(ref, ref_at);
    FieldPath at = ref_at;
    if (v1alpha2) {
      at = ref_at.field("workload");
      m = &r.map_field(*m, "workload", ref_at);
    }
    check_name(r, *m, "workloadName", at, false);
    check_name(r, *m, v1alpha2 ? "podGroupTemplateName" : "templateName", at, true);
  }

  // What the scheduler last reported: PodGroupInitiallyScheduled (v1beta1)
  // or PodGroupScheduled (v1alpha2). True: the group was placed, and a
  // restarted scheduler finds it running; False with reason Unschedulable:
  // the message it wrote, so as not to write it again.
  const Node& status = r.map_field(f.obj, "status", f.root);
  const Node& conditions = FieldReader::get(status, "conditions");
  if (conditions.is_array()) {
    for (const Node& c : conditions.items()) {
      if (!c.is_object()) continue;
      const Node* type = c.find("type");
      const Node* state = c.find("status");
      if (type == nullptr || state == nullptr || !type->is_string() || !state->is_string() ||
          (type->str() != "PodGroupInitiallyScheduled" && type->str() != "PodGroupScheduled"))
        continue;
      if (state->str() == "True") {
        g.phase = model::PodGroupPhase::Running;
      } else if (const Node* reason = c.find("reason");
                 reason != nullptr && reason->is_string() && reason->str() == "Unschedulable") {
        const Node* message = c.find("message");
        if (message != nullptr && message->is_string()) g.unschedulable = message->str();
      }
    }
  }
  return g;
}

void check_workload(const ObjectFields& f, std::string_view api_version) {
  const FieldReader& r = f.r;
  const bool v1alpha2 = is_v1alpha2(api_version);
  const FieldPath spec_path = f.root.field("spec");
  const Node& spec = r.map_field(f.obj, "spec", f.root);
  if (const Node& ref = FieldReader::get(spec, "controllerRef"); FieldReader::present(ref)) {
    const FieldPath at = spec_path.field("controllerRef");
    const Node& m = r.mapping(ref, at);
    if (r.text_field(m, "kind", at).empty())
      r.fail(at.field("kind"), "is missing; name the controller's kind");
    if (r.text_field(m, "name", at).empty())
      r.fail(at.field("name"), "is missing; name the controller");
  }
  const bool composite = FieldReader::present(FieldReader::get(spec, "compositePodGroupTemplates"));
  const Node& templates = FieldReader::get(spec, "podGroupTemplates");
  if (composite == FieldReader::present(templates))
    r.fail(spec_path.field("podGroupTemplates"),
           v1alpha2 ? "is missing; list the groups' templates (name, schedulingPolicy)"
                    : "must be given, or compositePodGroupTemplates instead, not both");
  std::vector<std::string> names;
  r.each_map(spec, "podGroupTemplates", spec_path, [&](const Node& t, const FieldPath& at) {
    check_name(r, t, "name", at, true);
    std::string name = r.text_field(t, "name", at);
    if (std::find(names.begin(), names.end(), name) != names.end())
      r.fail(at.field("name"), quote(name) + " names an earlier template too; give each its own");
    names.push_back(std::move(name));
    model::PodGroup g;
    read_group_spec(r, t, at, v1alpha2, g);
  });
  if (names.size() > 8)
    r.fail(spec_path.field("podGroupTemplates"),
           std::to_string(names.size()) + " templates are more than 8; split the workload");
}

}  // namespace scoria::decode
