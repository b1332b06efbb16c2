// storage.k8s.io/v1 CSIStorageCapacity: how much a StorageClass can still
// provision on the nodes its topology selects, as a CSI driver reports it,
// refused where the API server's validation refuses it.
#include "decode/kind_decoders.h"
#include "decode/scheduling_terms.h"
#include "decode/storage_fields.h"

namespace scoria::decode {

model::CSIStorageCapacity decode_storage_capacity(const ObjectFields& f) {
  const FieldReader& r = f.r;
  model::CSIStorageCapacity c;
  c.storage_class = r.text_field(f.obj, "storageClassName", f.root);
  if (c.storage_class.empty())
    r.fail(f.root.field("storageClassName"), "is missing; name the StorageClass it is for");
  const Node& topology = FieldReader::get(f.obj, "nodeTopology");
  if (FieldReader::present(topology)) {
    const FieldPath at = f.root.field("nodeTopology");
    c.node_topology = label_selector(r, r.mapping(topology, at), at);
  }
  c.capacity = bytes_field(r, f.obj, "capacity", f.root);
  c.maximum_volume_size = bytes_field(r, f.obj, "maximumVolumeSize", f.root);
  return c;
}

}  // namespace scoria::decode
