// storage.k8s.io/v1 CSIDriver: whether its volumes are attached to a node
// (and so count against the node's limit) and whether it reports the
// capacity it can provision (CSIStorageCapacity).
#include "decode/kind_decoders.h"

namespace scoria::decode {

model::CSIDriver decode_csi_driver(const ObjectFields& f) {
  const FieldReader& r = f.r;
  model::CSIDriver d;
  const FieldPath spec_path = f.root.field("spec");
  const Node& spec = r.map_field(f.obj, "spec", f.root);
  // The API server's defaults.
  d.attach_required = r.bool_field(spec, "attachRequired", spec_path).value_or(true);
  d.storage_capacity = r.bool_field(spec, "storageCapacity", spec_path).value_or(false);
  return d;
}

}  // namespace scoria::decode
