// resource.k8s.io/v1 ResourceClaim: the devices it asks for, the devices
// it was given and the nodes it may be used on (status.allocation), who it
// is reserved for, and who owns it (a claim made from a template is its
// pod's); refused where the API server's validation refuses it, the status
// as a status update is checked.
#include <set>
#include <string>

#include "decode/device_fields.h"
#include "decode/kind_decoders.h"

namespace scoria::decode {

namespace {

constexpr size_t kMaxResults = 32;
constexpr size_t kMaxReservedFor = 256;

model::DeviceResult result(const FieldReader& r, const Node& m, const FieldPath& at,
                           const model::DeviceClaimSpec& spec) {
  model::DeviceResult d;
  d.request = r.text_field(m, "request", at);
  if (d.request.empty()) {
    r.fail(at.field("request"),
           "is missing; name the request the device was allocated for (REQUEST, or "
           "REQUEST/ALTERNATIVE for a firstAvailable choice)");
  }
  if (!names_request(spec, d.request)) {
    r.fail(at.field("request"),
           quote(d.request) +
               " names no request of the claim's spec; give a request's name, or "
               "REQUEST/ALTERNATIVE for one of a request's firstAvailable");
  }
  d.driver = r.text_field(m, "driver", at);
  if (d.driver.empty()) r.fail(at.field("driver"), "is missing; name the device's driver");
  check_driver_name(r, d.driver, at.field("driver"));
  d.pool = r.text_field(m, "pool", at);
  if (d.pool.empty()) r.fail(at.field("pool"), "is missing; name the device's pool");
  check_pool_name(r, d.pool, at.field("pool"));
  d.device = r.text_field(m, "device", at);
  if (d.device.empty()) r.fail(at.field("device"), "is missing; name the device");
  check_dns_label(r, d.device, at.field("device"));
  d.admin_access = r.bool_field(m, "adminAccess", at).value_or(false);
  return d;
}

void read_allocation(const FieldReader& r, const Node& status, const FieldPath& status_path,
                     model::ResourceClaim& c) {
  const Node& allocation = FieldReader::get(status, "allocation");
  if (!FieldReader::present(allocation)) return;
  const FieldPath at = status_path.field("allocation");
  const Node& m = r.mapping(allocation, at);
  model::DeviceAllocation a;
  const FieldPath dp = at.field("devices");
  const Node& devices = r.map_field(m, "devices", at);
  const FieldPath rp = dp.field("results");
  const std::vector<const Node*> results = bounded_list(r, devices, "results", dp, kMaxResults);
  for (size_t i = 0; i < results.size(); ++i)
    a.results.push_back(result(r, r.mapping(*results[i], rp.index(i)), rp.index(i), c.spec));
  if (const Node& s = FieldReader::get(m, "nodeSelector"); FieldReader::present(s))
    a.node_selector =
        node_selector(r, r.mapping(s, at.field("nodeSelector")), at.field("nodeSelector"));
  c.allocation = std::move(a);
}

void read_reserved_for(const FieldReader& r, const Node& status, const FieldPath& status_path,
                       model::ResourceClaim& c) {
  const FieldPath at = status_path.field("reservedFor");
  const std::vector<const Node*> consumers =
      bounded_list(r, status, "reservedFor", status_path, kMaxReservedFor);
  std::set<std::string> uids;
  for (size_t i = 0; i < consumers.size(); ++i) {
    const FieldPath cp = at.index(i);
    const Node& m = r.mapping(*consumers[i], cp);
    model::ClaimConsumer who;
    who.api_group = r.text_field(m, "apiGroup", cp);
    who.resource = r.text_field(m, "resource", cp);
    if (who.resource.empty()) r.fail(cp.field("resource"), "is missing; write pods for a pod");
    who.name = r.text_field(m, "name", cp);
    if (who.name.empty())
      r.fail(cp.field("name"), "is missing; name who the claim is reserved for");
    who.uid = r.text_field(m, "uid", cp);
    if (who.uid.empty()) r.fail(cp.field("uid"), "is missing; give its metadata.uid");
    if (!uids.insert(who.uid).second)
      r.fail(cp.field("uid"), quote(who.uid) + " is listed twice; reserve for each once");
    c.reserved_for.push_back(std::move(who));
  }
  if (!c.reserved_for.empty() && !c.allocation) {
    r.fail(at,
           "is set without status.allocation; a claim is reserved only once devices are "
           "allocated to it");
  }
}

}  // namespace

model::ResourceClaim decode_resource_claim(const ObjectFields& f) {
  const FieldReader& r = f.r;
  model::ResourceClaim c;
  read_claim_metadata(f, c);
  const FieldPath spec_path = f.root.field("spec");
  c.spec = device_claim_spec(r, r.map_field(f.obj, "spec", f.root), spec_path);
  const FieldPath status_path = f.root.field("status");
  const Node& status = r.map_field(f.obj, "status", f.root);
  read_allocation(r, status, status_path, c);
  read_reserved_for(r, status, status_path, c);
  return c;
}

}  // namespace scoria::decode
