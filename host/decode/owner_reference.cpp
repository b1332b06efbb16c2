// metadata.ownerReferences as the garbage collector reads them: the one
// owner that is the controller (a claim made for a pod names the pod).
#include "decode/kind_decoders.h"

namespace scoria::decode {

ControllerRef read_controller(const ObjectFields& f) {
  const FieldReader& r = f.r;
  ControllerRef out;
  bool found = false;
  r.each_map(f.meta, "ownerReferences", f.meta_path, [&](const Node& o, const FieldPath& at) {
    if (!r.bool_field(o, "controller", at).value_or(false)) return;
    if (found)
      r.fail(at.field("controller"),
             "is true for a second owner; only one owner reference may be the controller");
    found = true;
    out = {r.text_field(o, "kind", at), r.text_field(o, "name", at), r.text_field(o, "uid", at)};
  });
  return out;
}

}  // namespace scoria::decode
