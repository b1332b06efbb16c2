// storage.k8s.io/v1 StorageClass: who provisions its volumes, when (at
// once, or once a pod using the claim is scheduled), where (its allowed
// topologies), and whether it is the default class, refused where the API
// server's validation refuses it.
#include <set>

#include "decode/kind_decoders.h"

namespace scoria::decode {

namespace {

constexpr std::string_view kDefaultKey = "storageclass.kubernetes.io/is-default-class";
constexpr std::string_view kBetaDefaultKey = "storageclass.beta.kubernetes.io/is-default-class";

model::BindingMode binding_mode(const FieldReader& r, const Node& obj, const FieldPath& root) {
  const std::string mode = r.text_field(obj, "volumeBindingMode", root);
  if (mode.empty() || mode == "Immediate") return model::BindingMode::Immediate;
  if (mode == "WaitForFirstConsumer") return model::BindingMode::WaitForFirstConsumer;
  r.fail(root.field("volumeBindingMode"),
         quote(mode) + " is not a volume binding mode; use Immediate or WaitForFirstConsumer");
}

/// One allowedTopologies term: each requirement is a label In its values.
model::NodeSelectorTerm topology_term(const FieldReader& r, const Node& m, const FieldPath& at) {
  model::NodeSelectorTerm term;
  std::set<std::string> keys;
  r.each_map(m, "matchLabelExpressions", at, [&](const Node& e, const FieldPath& ep) {
    model::SelectorRequirement req;
    req.op = model::SelectorOp::In;
    req.key = r.text_field(e, "key", ep);
    if (req.key.empty())
      r.fail(ep.field("key"),
             "is missing; name the topology label, e.g. topology.kubernetes.io/zone");
    if (!keys.insert(req.key).second)
      r.fail(ep.field("key"),
             quote(req.key) + " is already required in this term; give each key once");
    r.each(e, "values", ep,
           [&](const Node& v, const FieldPath& vp) { req.values.push_back(r.text(v, vp)); });
    if (req.values.empty()) r.fail(ep.field("values"), "is empty; give at least one value");
    term.requirements.push_back(std::move(req));
  });
  if (term.requirements.empty())
    r.fail(at.field("matchLabelExpressions"),
           "is empty; give at least one requirement, or remove the term");
  return term;
}

}  // namespace

model::StorageClass decode_storage_class(const ObjectFields& f) {
  const FieldReader& r = f.r;
  model::StorageClass sc;
  const auto annotations = r.string_map(f.meta, "annotations", f.meta_path);
  for (std::string_view key : {kDefaultKey, kBetaDefaultKey}) {
    const auto it = annotations.find(std::string(key));
    if (it != annotations.end() && it->second == "true") sc.is_default = true;
  }
  sc.provisioner = r.text_field(f.obj, "provisioner", f.root);
  if (sc.provisioner.empty()) {
    r.fail(f.root.field("provisioner"),
           "is missing; name what provisions the class's volumes, e.g. ebs.csi.aws.com, or "
           "kubernetes.io/no-provisioner for volumes made by hand");
  }
  sc.binding_mode = binding_mode(r, f.obj, f.root);
  r.each_map(f.obj, "allowedTopologies", f.root, [&](const Node& t, const FieldPath& at) {
    sc.allowed_topologies.push_back(topology_term(r, t, at));
  });
  return sc;
}

}  // namespace scoria::decode
