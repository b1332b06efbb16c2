// resource.k8s.io/v1 ResourceClaimTemplate: the claim made for each pod
// that names it (the labels and annotations it is given, the devices it
// asks for), refused where the API server's validation refuses it.
#include "decode/device_fields.h"
#include "decode/kind_decoders.h"

namespace scoria::decode {

model::ResourceClaimTemplate decode_resource_claim_template(const ObjectFields& f) {
  const FieldReader& r = f.r;
  model::ResourceClaimTemplate t;
  const FieldPath spec_path = f.root.field("spec");
  const Node& spec = r.map_field(f.obj, "spec", f.root);
  const FieldPath meta_path = spec_path.field("metadata");
  const Node& meta = r.map_field(spec, "metadata", spec_path);
  t.labels = r.string_map(meta, "labels", meta_path);
  t.annotations = r.string_map(meta, "annotations", meta_path);
  t.spec = device_claim_spec(r, r.map_field(spec, "spec", spec_path), spec_path.field("spec"));
  return t;
}

}  // namespace scoria::decode
