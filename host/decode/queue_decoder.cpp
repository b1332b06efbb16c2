// scheduling.volcano.sh/v1beta1 Queue.
#include "decode/kind_decoders.h"

namespace scoria::decode {

model::Queue decode_queue(const ObjectFields& f) {
  const FieldReader& r = f.r;
  model::Queue q;
  q.annotations = r.string_map(f.meta, "annotations", f.meta_path);
  q.creation_ms = r.timestamp(f.meta, "creationTimestamp", f.meta_path);
  const FieldPath spec_path = f.root.field("spec");
  const Node& spec = r.map_field(f.obj, "spec", f.root);
  // Volcano's admission turns weight 0 into the default 1.
  const int32_t weight = r.count_field(spec, "weight", spec_path, 1);
  q.weight = weight == 0 ? 1 : weight;
  q.priority = r.int_field(spec, "priority", spec_path).value_or(0);
  q.parent = r.text_field(spec, "parent", spec_path);
  q.capability = r.resources_field(spec, "capability", spec_path);
  q.deserved = r.resources_field(spec, "deserved", spec_path);
  // Volcano's schema nests the list (guarantee: {resource: {...}}); a plain
  // list is accepted too.
  const FieldPath g_path = spec_path.field("guarantee");
  const Node& guarantee = r.map_field(spec, "guarantee", spec_path);
  const Node& nested = FieldReader::get(guarantee, "resource");
  q.guarantee = nested.is_object() ? r.resources(nested, g_path.field("resource"))
                                   : r.resources(guarantee, g_path);
  q.reclaimable = r.bool_field(spec, "reclaimable", spec_path).value_or(true);
  const FieldPath status_path = f.root.field("status");
  const Node& status = r.map_field(f.obj, "status", f.root);
  const std::string state = r.text_field(status, "state", status_path);
  if (state.empty() || state == "Open") {
    q.open = true;
  } else if (state == "Closed" || state == "Closing" || state == "Unknown") {
    q.open = false;
  } else {
    r.fail(status_path.field("state"),
           quote(state) + " is not a queue state; use Open, Closed, Closing or Unknown");
  }
  return q;
}

}  // namespace scoria::decode
