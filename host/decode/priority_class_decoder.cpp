// scheduling.k8s.io/v1 PriorityClass.
#include "decode/kind_decoders.h"

namespace scoria::decode {

model::PriorityClass decode_priority_class(const ObjectFields& f, bool& never_preempt) {
  const FieldReader& r = f.r;
  model::PriorityClass pc;
  pc.value = r.int_field(f.obj, "value", f.root).value_or(0);
  pc.global_default = r.bool_field(f.obj, "globalDefault", f.root).value_or(false);
  const std::string policy = r.text_field(f.obj, "preemptionPolicy", f.root);
  if (!policy.empty() && policy != "Never" && policy != "PreemptLowerPriority") {
    r.fail(f.root.field("preemptionPolicy"),
           quote(policy) + " is not a preemption policy; use PreemptLowerPriority or Never");
  }
  never_preempt = policy == "Never";
  return pc;
}

}  // namespace scoria::decode
