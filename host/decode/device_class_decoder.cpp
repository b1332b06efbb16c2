// resource.k8s.io/v1 DeviceClass: the selectors every device allocated
// through the class must meet besides a request's own, refused where the
// API server's validation refuses them. Its config is the driver's, not
// read here.
#include "decode/device_fields.h"
#include "decode/kind_decoders.h"

namespace scoria::decode {

model::DeviceClass decode_device_class(const ObjectFields& f) {
  const FieldReader& r = f.r;
  model::DeviceClass c;
  const FieldPath spec_path = f.root.field("spec");
  const Node& spec = r.map_field(f.obj, "spec", f.root);
  c.selectors = device_selectors(r, spec, spec_path);
  return c;
}

}  // namespace scoria::decode
