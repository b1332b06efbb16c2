// storage.k8s.io/v1 CSINode: the CSI drivers installed on a node, each with
// how many of its volumes the node may attach, refused where the API
// server's validation refuses it.
#include <map>

#include "decode/kind_decoders.h"

namespace scoria::decode {

model::CSINode decode_csi_node(const ObjectFields& f) {
  const FieldReader& r = f.r;
  model::CSINode n;
  const FieldPath spec_path = f.root.field("spec");
  const Node& spec = r.map_field(f.obj, "spec", f.root);
  std::map<std::string, std::string> listed;  // driver -> where it was listed first
  r.each_map(spec, "drivers", spec_path, [&](const Node& d, const FieldPath& at) {
    model::CSINode::Driver driver;
    driver.name = r.text_field(d, "name", at);
    if (driver.name.empty())
      r.fail(at.field("name"), "is missing; name the CSI driver, e.g. ebs.csi.aws.com");
    if (const auto [it, fresh] = listed.emplace(driver.name, at.str()); !fresh)
      r.fail(at.field("name"), quote(driver.name) + " is already listed at " + it->second +
                                   "; list each driver once");
    driver.node_id = r.text_field(d, "nodeID", at);
    if (driver.node_id.empty())
      r.fail(at.field("nodeID"), "is missing; give the driver's ID for the node");
    const FieldPath alloc_path = at.field("allocatable");
    const Node& allocatable = r.map_field(d, "allocatable", at);
    if (const std::optional<int32_t> count = r.int_field(allocatable, "count", alloc_path)) {
      if (*count < 0)
        r.fail(alloc_path.field("count"), std::to_string(*count) + " is negative; write 0 or more");
      driver.allocatable = *count;
    }
    r.each(d, "topologyKeys", at, [&](const Node& k, const FieldPath& kp) {
      driver.topology_keys.push_back(r.text(k, kp));
    });
    n.drivers.push_back(std::move(driver));
  });
  return n;
}

}  // namespace scoria::decode
