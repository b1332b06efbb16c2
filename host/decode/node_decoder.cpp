// v1 Node.
#include "decode/kind_decoders.h"
#include "decode/scheduling_terms.h"

namespace scoria::decode {

model::Node decode_node(const ObjectFields& f) {
  const FieldReader& r = f.r;
  model::Node node;
  node.labels = r.string_map(f.meta, "labels", f.meta_path);
  node.annotations = r.string_map(f.meta, "annotations", f.meta_path);
  const FieldPath spec_path = f.root.field("spec");
  const Node& spec = r.map_field(f.obj, "spec", f.root);
  r.each_map(spec, "taints", spec_path, [&](const Node& t, const FieldPath& tp) {
    model::Taint taint;
    taint.key = r.text_field(t, "key", tp);
    if (taint.key.empty()) r.fail(tp.field("key"), "is missing; every taint needs a key");
    taint.value = r.text_field(t, "value", tp);
    taint.effect = taint_effect(r, r.text_field(t, "effect", tp), tp.field("effect"));
    node.taints.push_back(std::move(taint));
  });
  node.unschedulable = r.bool_field(spec, "unschedulable", spec_path).value_or(false);
  const FieldPath status_path = f.root.field("status");
  const Node& status = r.map_field(f.obj, "status", f.root);
  const Node& alloc = FieldReader::get(status, "allocatable");
  node.allocatable = FieldReader::present(alloc)
                         ? r.resources(alloc, status_path.field("allocatable"))
                         : r.resources_field(status, "capacity", status_path);
  r.each_map(status, "conditions", status_path, [&](const Node& c, const FieldPath& cp) {
    if (r.text_field(c, "type", cp) != "Ready") return;
    const std::string s = r.text_field(c, "status", cp);
    if (s == "True") {
      node.ready = true;
    } else if (s == "False" || s == "Unknown") {
      node.ready = false;
    } else {
      r.fail(cp.field("status"),
             quote(s) + " is not a condition status; use True, False or Unknown");
    }
  });
  return node;
}

}  // namespace scoria::decode
