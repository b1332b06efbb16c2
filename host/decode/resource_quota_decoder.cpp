// v1 ResourceQuota: its hard limits and, as the quota controller writes
// them, status.hard and status.used. Any resource name is taken (pods,
// requests.cpu, count/services, ...); every amount must be a quantity of 0
// or more, as the API server's validation requires.
#include "decode/kind_decoders.h"

namespace scoria::decode {

model::ResourceQuota decode_resource_quota(const ObjectFields& f) {
  const FieldReader& r = f.r;
  model::ResourceQuota q;
  const FieldPath spec_path = f.root.field("spec");
  const Node& spec = r.map_field(f.obj, "spec", f.root);
  q.hard = r.resources_field(spec, "hard", spec_path);
  const FieldPath status_path = f.root.field("status");
  const Node& status = r.map_field(f.obj, "status", f.root);
  q.status_hard = r.resources_field(status, "hard", status_path);
  q.used = r.resources_field(status, "used", status_path);
  return q;
}

}  // namespace scoria::decode
