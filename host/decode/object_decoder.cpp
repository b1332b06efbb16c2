#include "decode/object_decoder.h"

#include <algorithm>
#include <array>

#include "decode/kind_decoders.h"
#include "decode/object_names.h"
#include "decode/volcano_job.h"
#include "input/tree_json.h"

namespace scoria::decode {

namespace {

constexpr std::array<KindInfo, 21> kKinds{{
    {"Node", "v1", false},
    {"Pod", "v1", true},
    {"PodGroup", "scheduling.volcano.sh/v1beta1", true},
    {"Queue", "scheduling.volcano.sh/v1beta1", false},
    {"PriorityClass", "scheduling.k8s.io/v1", false},
    {"Namespace", "v1", false},
    {"PodDisruptionBudget", "policy/v1", true},
    {"ResourceQuota", "v1", true},
    {"Numatopology", "nodeinfo.volcano.sh/v1alpha1", false},
    {"HyperNode", "topology.volcano.sh/v1alpha1", false},
    {"PersistentVolume", "v1", false},
    {"PersistentVolumeClaim", "v1", true},
    {"StorageClass", "storage.k8s.io/v1", false},
    {"CSINode", "storage.k8s.io/v1", false},
    {"CSIDriver", "storage.k8s.io/v1", false},
    {"CSIStorageCapacity", "storage.k8s.io/v1", true},
    {"DeviceClass", "resource.k8s.io/v1", false},
    {"ResourceSlice", "resource.k8s.io/v1", false},
    {"ResourceClaim", "resource.k8s.io/v1", true},
    {"ResourceClaimTemplate", "resource.k8s.io/v1", true},
    {"NodeShard", "shard.volcano.sh/v1alpha1", false},
}};

// Kinds of Kubernetes' own gangs (KEP-4671), beside the table above (which
// follows the decoder's variant): a PodGroup of this group decodes to the
// same model as Volcano's; a Workload is checked and decides nothing.
constexpr std::array<KindInfo, 4> kWorkloadKinds{{
    {"Workload", "scheduling.k8s.io/v1beta1", true},
    {"PodGroup", "scheduling.k8s.io/v1beta1", true},
    {"Workload", "scheduling.k8s.io/v1alpha2", true},
    {"PodGroup", "scheduling.k8s.io/v1alpha2", true},
}};

bool is_workload_kind(const KindInfo* info) {
  return std::any_of(kWorkloadKinds.begin(), kWorkloadKinds.end(),
                     [&](const KindInfo& k) { return &k == info; });
}

/// Every apiVersion `kind` is read at, for a message.
std::string versions_of(std::string_view kind) {
  std::string out;
  const auto add = [&](const auto& table) {
    for (const KindInfo& k : table)
      if (k.kind == kind) out += (out.empty() ? "" : " or ") + std::string(k.api_version);
  };
  add(kKinds);
  add(kWorkloadKinds);
  return out;
}

std::string supported_kinds() {
  std::string out;
  for (const KindInfo& k : kKinds) {
    if (!out.empty()) out += ", ";
    out += std::string(k.api_version) + " " + std::string(k.kind);
  }
  return out + ", " + std::string(kVolcanoJobApiVersion) + " Job, " +
         std::string(kWorkloadKinds[0].api_version) + " Workload and PodGroup (or a List of them)";
}

/// One object: `node` at `root` (the document itself, or items[i] of a List).
void decode_object(FieldReader& r, const Node& node, const FieldPath& root, int doc, int item,
                   std::string_view default_kind, std::vector<Decoded>& out,
                   std::string_view text = {}) {
  r.set_kind({});
  r.set_object({});
  if (!node.is_object()) {
    r.fail(root, "is " + FieldReader::describe(node) +
                     ", not an object; write one object (apiVersion, kind, metadata, ...) per "
                     "document");
  }
  std::string kind = r.text_field(node, "kind", root);
  if (kind.empty()) kind = default_kind;
  if (kind.empty()) {
    r.fail(root.field("kind"),
           "is missing; every object needs apiVersion and kind, e.g. apiVersion: v1, kind: Pod");
  }
  r.set_kind(kind);
  // Name the object in messages about its kind already, when it has a name.
  if (const Node& meta = FieldReader::get(node, "metadata"); meta.is_object()) {
    const Node& n = FieldReader::get(meta, "name");
    const Node& ns = FieldReader::get(meta, "namespace");
    if (n.is_string())
      r.set_object((ns.is_string() ? std::string(ns.str()) + "/" : "") + std::string(n.str()));
  }
  if (kind == "Job" && is_volcano_job(node)) {
    // What Volcano's job controller makes of it (volcano_job.h). Without
    // the cluster's PriorityClasses at hand, its tasks count in their order.
    for (const Json& object :
         expand_volcano_job(r, node, root, [](const std::string&) { return 0; })) {
      input::NodeArena arena;
      decode_object(r, input::from_json(object, arena), root, doc, item, {}, out);
    }
    return;
  }
  if (find_kind(kind) == nullptr)
    r.fail(root.field("kind"), quote(kind) + " is not supported; use one of " + supported_kinds());
  const std::string api = r.text_field(node, "apiVersion", root);
  const KindInfo* info = find_kind(kind, api);
  if (info == nullptr) {
    r.fail(root.field("apiVersion"), quote(api) + " is not an apiVersion of " + kind +
                                         "; write apiVersion: " + versions_of(kind));
  }

  const FieldPath meta_path = root.field("metadata");
  const Node& meta = r.map_field(node, "metadata", root);
  const std::string name = r.text_field(meta, "name", meta_path);
  if (name.empty()) r.fail(meta_path.field("name"), "is missing; give the " + kind + " a name");
  // A namespace's name is a DNS label, as the namespace of anything is.
  if (auto why = kind == "Namespace" ? label_error(name) : subdomain_error(name))
    r.fail(meta_path.field("name"), *why);
  std::string ns;
  if (info->namespaced) {
    ns = r.text_field(meta, "namespace", meta_path);
    if (ns.empty()) ns = "default";
    if (auto why = label_error(ns)) r.fail(meta_path.field("namespace"), *why);
  }
  r.set_object(info->namespaced ? ns + "/" + name : name);

  const ObjectFields f{r, node, root, meta, meta_path};
  bool never_preempt = false;
  // Each object is moved once, into its place in `out`.
  const auto put = [&]<class T>(T&& object) {
    Decoded& d = out.emplace_back();
    d.object.template emplace<std::remove_cvref_t<T>>(std::forward<T>(object));
    d.doc = doc;
    d.item = item;
    d.never_preempt = never_preempt;
  };
  if (is_workload_kind(info)) {
    if (kind == "Workload") {
      check_workload(f, info->api_version);
      return;
    }
    model::PodGroup g = decode_native_pod_group(f, info->api_version);
    g.namespace_ = ns;
    g.name = name;
    put(std::move(g));
  } else if (kind == "Node") {
    model::Node n = decode_node(f);
    n.name = name;
    put(std::move(n));
  } else if (kind == "Pod") {
    model::Pod pod = decode_pod(f);
    pod.namespace_ = ns;
    pod.name = name;
    pod.json = text.empty() ? input::dump(node) : std::string(text);
    put(std::move(pod));
  } else if (kind == "PodGroup") {
    model::PodGroup g = decode_pod_group(f);
    g.namespace_ = ns;
    g.name = name;
    put(std::move(g));
  } else if (kind == "Queue") {
    model::Queue q = decode_queue(f);
    q.name = name;
    q.json = text.empty() ? input::dump(node) : std::string(text);
    put(std::move(q));
  } else if (kind == "PriorityClass") {
    model::PriorityClass pc = decode_priority_class(f, never_preempt);
    pc.name = name;
    put(std::move(pc));
  } else if (kind == "Namespace") {
    model::Namespace n = decode_namespace(f);
    n.name = name;
    put(std::move(n));
  } else if (kind == "PodDisruptionBudget") {
    // Plugins read it whole (session_object_json), as they read pods.
    model::PodDisruptionBudget pdb = decode_disruption_budget(f);
    pdb.namespace_ = ns;
    pdb.name = name;
    pdb.json = text.empty() ? input::dump(node) : std::string(text);
    put(std::move(pdb));
  } else if (kind == "Numatopology") {
    model::Numatopology t = decode_numatopology(f);
    t.name = name;
    t.json = text.empty() ? input::dump(node) : std::string(text);
    put(std::move(t));
  } else if (kind == "HyperNode") {
    model::HyperNode h = decode_hyper_node(f);
    h.name = name;
    h.json = text.empty() ? input::dump(node) : std::string(text);
    put(std::move(h));
  } else if (kind == "PersistentVolume") {
    // The storage kinds keep the text a source hands in (the local
    // store's, which a completion patches) and print none: nothing else
    // reads it, and a cluster holds them by the hundred thousand.
    model::PersistentVolume pv = decode_persistent_volume(f);
    pv.name = name;
    pv.json = std::string(text);
    put(std::move(pv));
  } else if (kind == "PersistentVolumeClaim") {
    model::PersistentVolumeClaim c = decode_volume_claim(f);
    c.namespace_ = ns;
    c.name = name;
    c.json = std::string(text);
    put(std::move(c));
  } else if (kind == "StorageClass") {
    model::StorageClass sc = decode_storage_class(f);
    sc.name = name;
    sc.json = std::string(text);
    put(std::move(sc));
  } else if (kind == "CSINode") {
    model::CSINode n = decode_csi_node(f);
    n.name = name;
    n.json = std::string(text);
    put(std::move(n));
  } else if (kind == "CSIDriver") {
    model::CSIDriver driver = decode_csi_driver(f);
    driver.name = name;
    driver.json = std::string(text);
    put(std::move(driver));
  } else if (kind == "CSIStorageCapacity") {
    model::CSIStorageCapacity c = decode_storage_capacity(f);
    c.namespace_ = ns;
    c.name = name;
    c.json = std::string(text);
    put(std::move(c));
  } else if (kind == "DeviceClass") {
    model::DeviceClass c = decode_device_class(f);
    c.name = name;
    c.json = text.empty() ? input::dump(node) : std::string(text);
    put(std::move(c));
  } else if (kind == "ResourceSlice") {
    model::ResourceSlice s = decode_resource_slice(f);
    s.name = name;
    s.json = text.empty() ? input::dump(node) : std::string(text);
    put(std::move(s));
  } else if (kind == "ResourceClaim") {
    model::ResourceClaim c = decode_resource_claim(f);
    c.namespace_ = ns;
    c.name = name;
    c.json = text.empty() ? input::dump(node) : std::string(text);
    put(std::move(c));
  } else if (kind == "ResourceClaimTemplate") {
    model::ResourceClaimTemplate t = decode_resource_claim_template(f);
    t.namespace_ = ns;
    t.name = name;
    t.json = text.empty() ? input::dump(node) : std::string(text);
    put(std::move(t));
  } else if (kind == "NodeShard") {
    model::NodeShard s = decode_node_shard(f);
    s.name = name;
    put(std::move(s));
  } else {
    model::ResourceQuota q = decode_resource_quota(f);
    q.namespace_ = ns;
    q.name = name;
    q.json = text.empty() ? input::dump(node) : std::string(text);
    put(std::move(q));
  }
}

}  // namespace

std::span<const KindInfo> kinds() { return kKinds; }

const KindInfo* find_kind(std::string_view kind, std::string_view api_version) {
  const auto match = [&](const KindInfo& k) {
    return k.kind == kind && (api_version.empty() || k.api_version == api_version);
  };
  if (const auto it = std::find_if(kKinds.begin(), kKinds.end(), match); it != kKinds.end())
    return &*it;
  const auto it = std::find_if(kWorkloadKinds.begin(), kWorkloadKinds.end(), match);
  return it == kWorkloadKinds.end() ? nullptr : &*it;
}

void decode_document(const Json& doc, std::string_view origin, int number,
                     std::vector<Decoded>& out, std::string_view text) {
  input::NodeArena arena;
  decode_document(input::from_json(doc, arena), origin, number, out, text);
}

void decode_document(const Node& doc, std::string_view origin, int number,
                     std::vector<Decoded>& out, std::string_view text) {
  FieldReader r(origin, number);
  const FieldPath root;
  const std::string kind =
      doc.is_object() ? r.text(FieldReader::get(doc, "kind"), root.field("kind")) : std::string();
  const bool is_list = kind.size() >= 4 && kind.compare(kind.size() - 4, 4, "List") == 0;
  if (!is_list) {
    decode_object(r, doc, root, number, -1, {}, out, text);
    return;
  }
  r.set_kind(kind);
  const std::string item_kind = kind.substr(0, kind.size() - 4);
  int i = 0;
  r.each(doc, "items", root, [&](const Node& item, const FieldPath& at) {
    decode_object(r, item, at, number, i++, item_kind, out);
  });
}

}  // namespace scoria::decode
