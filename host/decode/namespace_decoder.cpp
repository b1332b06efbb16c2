// v1 Namespace: its labels, which pod affinity terms' namespaceSelector
// matches.
#include "decode/kind_decoders.h"

namespace scoria::decode {

model::Namespace decode_namespace(const ObjectFields& f) {
  model::Namespace n;
  n.labels = f.r.string_map(f.meta, "labels", f.meta_path);
  return n;
}

}  // namespace scoria::decode
