// v1 Pod: what scheduling reads of it, and the whole object as JSON for the
// plugins that read more (pod affinity, topology spread, host ports).
#include <string_view>

#include "decode/kind_decoders.h"
#include "decode/object_names.h"
#include "decode/scheduling_terms.h"
#include "model/quantity.h"
#include "model/resource_list.h"

namespace scoria::decode {

namespace {

constexpr std::string_view kGroupNameKey = "scheduling.k8s.io/group-name";
constexpr std::string_view kTaskSpecKey = "volcano.sh/task-spec";

/// True if `key` of `m` holds a non-empty list.
bool has_items(const Node& m, std::string_view key) {
  const Node& n = FieldReader::get(m, key);
  return n.is_array() && !n.empty();
}

/// Which pod (anti-)affinity terms the pod has; their content is read by the
/// plugins that use them, from the pod's JSON.
uint32_t pod_affinity_features(const FieldReader& r, const Node& affinity,
                               const FieldPath& aff_path) {
  constexpr std::string_view kRequired = "requiredDuringSchedulingIgnoredDuringExecution";
  constexpr std::string_view kPreferred = "preferredDuringSchedulingIgnoredDuringExecution";
  uint32_t features = 0;
  const Node& pod_affinity = r.map_field(affinity, "podAffinity", aff_path);
  const Node& anti_affinity = r.map_field(affinity, "podAntiAffinity", aff_path);
  if (has_items(pod_affinity, kRequired)) features |= model::kPodAffinity;
  if (has_items(anti_affinity, kRequired)) features |= model::kPodAntiAffinity;
  if (has_items(pod_affinity, kPreferred) || has_items(anti_affinity, kPreferred))
    features |= model::kPreferredPodAffinity;
  return features;
}

/// True if a container or init container asks for a host port.
bool uses_host_ports(const FieldReader& r, const Node& spec, const FieldPath& spec_path) {
  bool found = false;
  for (std::string_view list : {"containers", "initContainers"}) {
    r.each_map(spec, list, spec_path, [&](const Node& c, const FieldPath& cp) {
      r.each_map(c, "ports", cp, [&](const Node& port, const FieldPath& pp) {
        if (r.int_field(port, "hostPort", pp).value_or(0) > 0) found = true;
      });
    });
  }
  return found;
}

/// Volcano's HasOnlyVolcanoSchedulingGate and HasQueueAllocationGateAnnotation.
uint8_t queue_gate(const FieldReader& r, const Node& spec, const FieldPath& spec_path,
                   const std::map<std::string, std::string>& annotations) {
  uint8_t bits = 0;
  const Node& gates = FieldReader::get(spec, "schedulingGates");
  if (gates.is_array() && gates.size() == 1) {
    r.each_map(spec, "schedulingGates", spec_path, [&](const Node& g, const FieldPath& gp) {
      if (r.text_field(g, "name", gp) == model::kQueueAllocationGate) bits |= model::kOnlyQueueGate;
    });
  }
  if (const auto a = annotations.find(std::string(model::kQueueAllocationGate));
      a != annotations.end() && a->second == "true")
    bits |= model::kQueueGateAnnotated;
  return bits;
}

model::PodPhase pod_phase(const FieldReader& r, const std::string& phase, const FieldPath& at) {
  if (phase.empty() || phase == "Pending") return model::PodPhase::Pending;
  if (phase == "Running") return model::PodPhase::Running;
  if (phase == "Succeeded") return model::PodPhase::Succeeded;
  if (phase == "Failed") return model::PodPhase::Failed;
  if (phase == "Unknown") return model::PodPhase::Unknown;
  r.fail(at,
         quote(phase) + " is not a pod phase; use Pending, Running, Succeeded, Failed or Unknown");
}

/// A container's requests, defaulted from its limits as Kubernetes does:
/// a resource with a limit and no request requests the limit.
model::ResourceList container_requests(const FieldReader& r, const Node& c, const FieldPath& at) {
  const FieldPath res_path = at.field("resources");
  const Node& res = r.map_field(c, "resources", at);
  const FieldPath req_path = res_path.field("requests");
  model::ResourceList requests = r.resources(FieldReader::get(res, "requests"), req_path);
  const model::ResourceList limits = r.resources_field(res, "limits", res_path);
  for (const auto& entry : limits) {
    const std::string& name = entry.first;  // a plain reference: lambdas capture it (clang 14)
    const double limit = entry.second;
    auto it = std::find_if(requests.begin(), requests.end(),
                           [&](const auto& e) { return e.first == name; });
    if (it == requests.end()) {
      requests.emplace_back(name, limit);
    } else if (it->second > limit) {
      r.fail(req_path.field(name),
             "request " + model::format_quantity(name, it->second) + " is more than the limit " +
                 model::format_quantity(name, limit) + "; lower the request or raise the limit");
    }
  }
  return requests;
}

void read_affinity(const FieldReader& r, const Node& spec, const FieldPath& spec_path,
                   model::Pod& pod) {
  const FieldPath aff_path = spec_path.field("affinity");
  const Node& affinity = r.map_field(spec, "affinity", spec_path);
  pod.features |= pod_affinity_features(r, affinity, aff_path);
  const FieldPath na_path = aff_path.field("nodeAffinity");
  const Node& node_affinity = r.map_field(affinity, "nodeAffinity", aff_path);
  const FieldPath req_path = na_path.field("requiredDuringSchedulingIgnoredDuringExecution");
  const Node& required =
      FieldReader::get(node_affinity, "requiredDuringSchedulingIgnoredDuringExecution");
  if (FieldReader::present(required)) {
    const Node& req = r.mapping(required, req_path);
    r.each_map(req, "nodeSelectorTerms", req_path, [&](const Node& t, const FieldPath& tp) {
      pod.required_affinity.push_back(selector_term(r, t, tp));
    });
    if (pod.required_affinity.empty()) {
      r.fail(req_path.field("nodeSelectorTerms"),
             "is empty; give at least one term, or remove requiredDuringScheduling...");
    }
  }
  r.each_map(node_affinity, "preferredDuringSchedulingIgnoredDuringExecution", na_path,
             [&](const Node& p, const FieldPath& pp) {
               const std::optional<int32_t> w = r.int_field(p, "weight", pp);
               if (!w || *w < 1 || *w > 100) {
                 r.fail(pp.field("weight"),
                        (w ? std::to_string(*w) + " is out of range" : std::string("is missing")) +
                            "; write a weight from 1 to 100");
               }
               const FieldPath pref_path = pp.field("preference");
               const Node& pref = FieldReader::get(p, "preference");
               if (!FieldReader::present(pref))
                 r.fail(pref_path, "is missing; give a node selector term");
               model::NodeSelectorTerm term =
                   selector_term(r, r.mapping(pref, pref_path), pref_path);
               term.weight = *w;
               pod.preferred_affinity.push_back(std::move(term));
             });
}

/// Requests as Kubernetes counts them (PodRequests): regular containers and
/// sidecars (init containers with restartPolicy Always) run together; each
/// other init container runs alone beside the sidecars started before it.
void read_requests(const FieldReader& r, const Node& spec, const FieldPath& spec_path,
                   model::Pod& pod) {
  r.each_map(spec, "containers", spec_path, [&](const Node& c, const FieldPath& cp) {
    model::add_into(pod.requests, container_requests(r, c, cp));
  });
  model::ResourceList sidecars;
  model::ResourceList init_peak;
  r.each_map(spec, "initContainers", spec_path, [&](const Node& c, const FieldPath& cp) {
    model::ResourceList req = container_requests(r, c, cp);
    if (r.text_field(c, "restartPolicy", cp) == "Always") {
      model::add_into(pod.requests, req);
      model::add_into(sidecars, req);
      req = sidecars;
    } else {
      model::add_into(req, sidecars);
    }
    model::max_into(init_peak, req);
  });
  pod.init_requests = pod.requests;
  model::max_into(pod.init_requests, init_peak);
  const model::ResourceList overhead = r.resources_field(spec, "overhead", spec_path);
  model::add_into(pod.requests, overhead);
  model::add_into(pod.init_requests, overhead);
}

/// The claims the pod's volumes name: a persistentVolumeClaim's claimName,
/// or for a generic ephemeral volume the claim the ephemeral-volume
/// controller makes for it, POD-VOLUME. Other volumes need no claim.
void read_claims(const FieldReader& r, const Node& spec, const FieldPath& spec_path,
                 const std::string& pod_name, model::Pod& pod) {
  r.each_map(spec, "volumes", spec_path, [&](const Node& v, const FieldPath& vp) {
    const Node& claim = FieldReader::get(v, "persistentVolumeClaim");
    const Node& ephemeral = FieldReader::get(v, "ephemeral");
    if (FieldReader::present(claim)) {
      const FieldPath at = vp.field("persistentVolumeClaim");
      std::string name = r.text_field(r.mapping(claim, at), "claimName", at);
      if (name.empty())
        r.fail(at.field("claimName"), "is missing; name the PersistentVolumeClaim to mount");
      pod.claims.push_back({std::move(name), false});
    } else if (FieldReader::present(ephemeral)) {
      const FieldPath at = vp.field("ephemeral");
      const Node& m = r.mapping(ephemeral, at);
      const Node& tmpl = FieldReader::get(m, "volumeClaimTemplate");
      if (!FieldReader::present(tmpl))
        r.fail(at.field("volumeClaimTemplate"),
               "is missing; give the claim to create for the pod (its spec)");
      r.mapping(tmpl, at.field("volumeClaimTemplate"));  // refused unless a mapping
      const std::string volume = r.text_field(v, "name", vp);
      if (volume.empty())
        r.fail(vp.field("name"), "is missing; name the volume (its claim is named POD-VOLUME)");
      pod.claims.push_back({pod_name + "-" + volume, true});
    }
  });
}

/// spec.resourceClaims, refused where the API server's validation refuses
/// them: each named once, naming a ResourceClaim or a template, not both.
void read_device_claims(const FieldReader& r, const Node& spec, const FieldPath& spec_path,
                        model::Pod& pod) {
  r.each_map(spec, "resourceClaims", spec_path, [&](const Node& c, const FieldPath& cp) {
    model::DeviceClaimRef ref;
    ref.name = r.text_field(c, "name", cp);
    if (ref.name.empty())
      r.fail(cp.field("name"),
             "is missing; name the entry (containers use it in resources.claims)");
    for (const model::DeviceClaimRef& other : pod.device_claims)
      if (other.name == ref.name)
        r.fail(cp.field("name"),
               quote(ref.name) + " is used by an earlier entry; names must differ");
    ref.claim = r.text_field(c, "resourceClaimName", cp);
    ref.template_ = r.text_field(c, "resourceClaimTemplateName", cp);
    if (ref.claim.empty() == ref.template_.empty())
      r.fail(cp, "must name exactly one of resourceClaimName and resourceClaimTemplateName");
    pod.device_claims.push_back(std::move(ref));
  });
}

/// status.resourceClaimStatuses: the claim the resource-claim controller
/// made for each entry from a template. An entry naming no resourceClaims
/// entry is ignored; one without resourceClaimName made nothing (yet).
void read_made_claims(const FieldReader& r, const Node& status, const FieldPath& status_path,
                      model::Pod& pod) {
  r.each_map(status, "resourceClaimStatuses", status_path, [&](const Node& s, const FieldPath& sp) {
    const std::string name = r.text_field(s, "name", sp);
    for (model::DeviceClaimRef& ref : pod.device_claims)
      if (ref.name == name) ref.made = r.text_field(s, "resourceClaimName", sp);
  });
}

/// spec.schedulingGroup.podGroupName: the scheduling.k8s.io PodGroup the
/// pod belongs to (KEP-4671). A pod names one group, of one kind.
void read_scheduling_group(const FieldReader& r, const Node& spec, const FieldPath& spec_path,
                           model::Pod& pod) {
  const Node& group = FieldReader::get(spec, "schedulingGroup");
  if (!FieldReader::present(group)) return;
  const FieldPath at = spec_path.field("schedulingGroup");
  const std::string name = r.text_field(r.mapping(group, at), "podGroupName", at);
  if (name.empty()) r.fail(at.field("podGroupName"), "is missing; name the pod's PodGroup");
  if (auto why = subdomain_error(name)) r.fail(at.field("podGroupName"), *why);
  if (!pod.group_name.empty())
    r.fail(at, "is given with the annotation " + std::string(kGroupNameKey) +
                   "; a pod belongs to one PodGroup: keep one of them");
  pod.group_name = name;
  pod.native_group = true;
}

}  // namespace

model::Pod decode_pod(const ObjectFields& f) {
  const FieldReader& r = f.r;
  model::Pod pod;
  pod.labels = r.string_map(f.meta, "labels", f.meta_path);
  pod.annotations = r.string_map(f.meta, "annotations", f.meta_path);
  pod.creation_ms = r.timestamp(f.meta, "creationTimestamp", f.meta_path);
  pod.uid = r.text_field(f.meta, "uid", f.meta_path);
  pod.deleting = !r.text_field(f.meta, "deletionTimestamp", f.meta_path).empty();
  if (auto g = pod.annotations.find(std::string(kGroupNameKey)); g != pod.annotations.end())
    pod.group_name = g->second;

  // volcano.sh/preemptable and volcano.sh/task-spec: annotation, else label.
  pod.preemptable = read_preemptable(r, pod.annotations, pod.labels, f.meta_path, true);
  for (const auto* m : {&pod.annotations, &pod.labels}) {
    auto it = m->find(std::string(kTaskSpecKey));
    if (it != m->end() && !it->second.empty()) {
      pod.role = it->second;
      break;
    }
  }

  const FieldPath spec_path = f.root.field("spec");
  const Node& spec = r.map_field(f.obj, "spec", f.root);
  pod.scheduler_name = r.text_field(spec, "schedulerName", spec_path);
  pod.node_name = r.text_field(spec, "nodeName", spec_path);
  read_scheduling_group(r, spec, spec_path, pod);
  pod.priority_class_name = r.text_field(spec, "priorityClassName", spec_path);
  pod.priority = r.int_field(spec, "priority", spec_path);
  const std::string policy = r.text_field(spec, "preemptionPolicy", spec_path);
  if (policy == "Never") {
    pod.preempt_never = true;
  } else if (!policy.empty() && policy != "PreemptLowerPriority") {
    r.fail(spec_path.field("preemptionPolicy"),
           quote(policy) + " is not a preemption policy; use PreemptLowerPriority or Never");
  }
  pod.node_selector = r.string_map(spec, "nodeSelector", spec_path);
  read_requests(r, spec, spec_path, pod);
  read_affinity(r, spec, spec_path, pod);
  r.each_map(spec, "tolerations", spec_path, [&](const Node& t, const FieldPath& tp) {
    pod.tolerations.push_back(toleration(r, t, tp));
  });
  if (has_items(spec, "topologySpreadConstraints")) pod.features |= model::kTopologySpread;
  if (uses_host_ports(r, spec, spec_path)) pod.features |= model::kHostPorts;
  pod.scheduling_gated = has_items(spec, "schedulingGates");
  pod.queue_gate = queue_gate(r, spec, spec_path, pod.annotations);
  if (pod.queue_gate & model::kQueueGateAnnotated) pod.features |= model::kQueueGateOptIn;
  read_claims(r, spec, spec_path, r.text_field(f.meta, "name", f.meta_path), pod);
  if (!pod.claims.empty()) pod.features |= model::kVolumes;
  read_device_claims(r, spec, spec_path, pod);
  if (!pod.device_claims.empty()) pod.features |= model::kDeviceClaims;

  const FieldPath status_path = f.root.field("status");
  const Node& status = r.map_field(f.obj, "status", f.root);
  pod.phase = pod_phase(r, r.text_field(status, "phase", status_path), status_path.field("phase"));
  pod.nominated_node = r.text_field(status, "nominatedNodeName", status_path);
  read_made_claims(r, status, status_path, pod);
  r.each_map(status, "conditions", status_path, [&](const Node& c, const FieldPath& cp) {
    if (r.text_field(c, "type", cp) == "PodScheduled" && r.text_field(c, "status", cp) == "True")
      pod.scheduled_ms = r.timestamp(c, "lastTransitionTime", cp);
  });
  return pod;
}

}  // namespace scoria::decode
