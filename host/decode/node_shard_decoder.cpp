// shard.volcano.sh/v1alpha1 NodeShard: refused where Volcano's CRD refuses
// it (no spec.nodesDesired, a list that is not of strings), and where a
// node name could not be one (not a DNS subdomain). Names are kept sorted
// and unique: the sets are compared, never walked in order.
#include <algorithm>

#include "decode/kind_decoders.h"
#include "decode/object_names.h"

namespace scoria::decode {

namespace {

std::vector<std::string> node_names(const FieldReader& r, const Node& map, std::string_view key,
                                    const FieldPath& parent) {
  std::vector<std::string> out;
  r.each(map, key, parent, [&](const Node& item, const FieldPath& at) {
    if (!item.is_string())
      r.fail(at,
             "is " + FieldReader::describe(item) + ", not a node name; write one name per item");
    std::string name(item.str());
    if (auto why = subdomain_error(name)) r.fail(at, *why);
    out.push_back(std::move(name));
  });
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace

model::NodeShard decode_node_shard(const ObjectFields& f) {
  model::NodeShard s;
  const FieldPath spec_path = f.root.field("spec");
  const Node& spec = f.r.map_field(f.obj, "spec", f.root);
  if (!FieldReader::present(FieldReader::get(spec, "nodesDesired")))
    f.r.fail(spec_path.field("nodesDesired"),
             "is missing; list the nodes this shard may use (an empty list gives it none)");
  s.nodes_desired = node_names(f.r, spec, "nodesDesired", spec_path);
  const FieldPath status_path = f.root.field("status");
  const Node& status = f.r.map_field(f.obj, "status", f.root);
  s.status.nodes_in_use = node_names(f.r, status, "nodesInUse", status_path);
  s.status.nodes_to_add = node_names(f.r, status, "nodesToAdd", status_path);
  s.status.nodes_to_remove = node_names(f.r, status, "nodesToRemove", status_path);
  return s;
}

}  // namespace scoria::decode
