// resource.k8s.io/v1 ResourceSlice: some of a driver's pool of devices,
// where they are available (one node, the nodes a selector picks, every
// node, or each device its own), each device's attributes, capacity,
// counters and taints, or the pool's shared counters; refused where the API
// server's validation refuses it. Attribute and capacity names without a
// domain are the driver's, and are kept fully qualified, as CEL sees them.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cel/semver.h"
#include "decode/device_fields.h"
#include "decode/kind_decoders.h"

namespace scoria::decode {

namespace {

constexpr size_t kMaxDevices = 128;
// With taints or counters on any device (the API's "advanced features").
constexpr size_t kMaxAdvancedDevices = 64;
constexpr size_t kMaxAttributeLength = 64;
constexpr size_t kMaxCounterSets = 8;
constexpr size_t kMaxCounters = 32;
constexpr size_t kMaxConsumptions = 2;
constexpr size_t kMaxTaints = 16;

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

model::DeviceAttribute attribute(const FieldReader& r, const Node& m, const FieldPath& at) {
  for (std::string_view list : {"ints", "bools", "strings", "versions"}) {
    if (FieldReader::present(FieldReader::get(m, list))) {
      r.fail(at.field(list),
             "is a list attribute (the alpha DRAListTypeAttributes), which is "
             "not supported; give one value as int, bool, string or version");
    }
  }
  std::vector<std::string> given;
  for (std::string_view type : {"int", "bool", "string", "version"})
    if (FieldReader::present(FieldReader::get(m, type))) given.emplace_back(type);
  if (given.size() != 1) {
    r.fail(at, (given.empty() ? std::string("has no value") : "has " + joined(given)) +
                   "; give exactly one of int, bool, string or version");
  }
  model::DeviceAttribute a;
  if (given[0] == "int") {
    a.value = *int64_field(r, m, "int", at);
  } else if (given[0] == "bool") {
    a.value = r.boolean(FieldReader::get(m, "bool"), at.field("bool"));
  } else {
    const FieldPath vp = at.field(given[0]);
    std::string text = r.text_field(m, given[0], at);
    if (text.size() > kMaxAttributeLength) {
      r.fail(vp, std::to_string(text.size()) + " characters are more than the " +
                     std::to_string(kMaxAttributeLength) + " allowed; shorten it");
    }
    if (given[0] == "string") {
      a.value = std::move(text);
    } else if (const std::optional<cel::Semver> v = cel::parse_semver(text)) {
      a.value = *v;
    } else {
      r.fail(vp, quote(text) +
                     " is not a semantic version (semver.org 2.0.0); write e.g. "
                     "\"1.2.3\" or \"12.4.0-rc.1\"");
    }
  }
  return a;
}

/// Stores `value` under `key` made fully qualified; where a device gives a
/// name both bare and with the driver's domain, the explicit form wins, as
/// Kubernetes looks attributes up.
template <class T>
void put_qualified(std::map<std::string, T>& map, const std::string& key, std::string_view driver,
                   T value) {
  const auto [it, fresh] = map.try_emplace(qualified(key, driver), value);
  if (!fresh && key.find('/') != std::string::npos) it->second = std::move(value);
}

/// counters: {NAME: {value: QUANTITY}}, names DNS labels, 1 to 32 of them.
std::map<std::string, cel::Quantity> counters(const FieldReader& r, const Node& m,
                                              const FieldPath& parent) {
  std::map<std::string, cel::Quantity> out;
  const FieldPath at = parent.field("counters");
  const Node& map = r.map_field(m, "counters", parent);
  if (map.empty()) r.fail(at, "is empty; give at least one counter, e.g. memory: {value: 40Gi}");
  if (map.size() > kMaxCounters) {
    r.fail(at, std::to_string(map.size()) + " counters are more than the " +
                   std::to_string(kMaxCounters) + " allowed");
  }
  for (const input::NodeEntry& e : map.entries()) {
    const FieldPath cp = at.field(e.key);
    check_dns_label(r, e.key, cp);
    out.emplace(std::string(e.key), quantity_value(r, r.mapping(e.value, cp), cp));
  }
  return out;
}

/// A counter set's or a consumption's name.
std::string counter_set_name(const FieldReader& r, const Node& m, std::string_view key,
                             const FieldPath& at) {
  std::string name = r.text_field(m, key, at);
  if (name.empty()) r.fail(at.field(key), "is missing; name the counter set, e.g. gpu-0-counters");
  check_dns_label(r, name, at.field(key));
  return name;
}

std::optional<model::DeviceTaint> taint(const FieldReader& r, const Node& m, const FieldPath& at) {
  model::DeviceTaint t;
  t.key = r.text_field(m, "key", at);
  if (t.key.empty())
    r.fail(at.field("key"), "is missing; give the taint's key, e.g. example.com/unhealthy");
  check_label_name(r, t.key, at.field("key"));
  t.value = r.text_field(m, "value", at);
  check_label_value(r, t.value, at.field("value"));
  const std::string effect = r.text_field(m, "effect", at);
  if (effect == "NoSchedule") return t;
  if (effect == "NoExecute") {
    t.effect = model::TaintEffect::NoExecute;
    return t;
  }
  // Effect None only informs: it keeps no device from any claim, so it is not kept.
  if (effect == "None") return std::nullopt;
  r.fail(at.field("effect"), (effect.empty() ? std::string("is missing")
                                             : quote(effect) + " is not a device taint effect") +
                                 "; use NoSchedule, NoExecute or None");
}

/// A device's own node selection (a slice with perDeviceNodeSelection).
void device_nodes(const FieldReader& r, const Node& m, const FieldPath& at, bool per_device,
                  model::Device& d) {
  std::vector<std::string> given;
  if (const Node& n = FieldReader::get(m, "nodeName"); FieldReader::present(n)) {
    d.node_name = r.text(n, at.field("nodeName"));
    if (d.node_name.empty())
      r.fail(at.field("nodeName"), "is empty; name the node, or remove nodeName");
    check_dns_subdomain(r, d.node_name, at.field("nodeName"));
    given.emplace_back("nodeName");
  }
  if (const Node& s = FieldReader::get(m, "nodeSelector"); FieldReader::present(s)) {
    const FieldPath sp = at.field("nodeSelector");
    d.node_selector = node_selector(r, r.mapping(s, sp), sp);
    given.emplace_back("nodeSelector");
  }
  if (const std::optional<bool> all = r.bool_field(m, "allNodes", at)) {
    if (!*all) r.fail(at.field("allNodes"), "is false; set it to true, or remove it");
    d.all_nodes = true;
    given.emplace_back("allNodes");
  }
  if (!per_device && !given.empty()) {
    r.fail(at.field(given[0]),
           "may be set on a device only when the slice sets perDeviceNodeSelection: true; "
           "set that instead of the slice's node selection, or remove it");
  }
  if (per_device && given.size() != 1) {
    r.fail(at,
           (given.empty() ? std::string("says nowhere it is available") : "sets " + joined(given)) +
               "; with perDeviceNodeSelection each device gives exactly one of nodeName, "
               "nodeSelector and allNodes: true");
  }
}

model::Device device(const FieldReader& r, const Node& m, const FieldPath& at,
                     const std::string& driver, bool per_device) {
  model::Device d;
  d.name = r.text_field(m, "name", at);
  if (d.name.empty()) r.fail(at.field("name"), "is missing; name the device, e.g. gpu-0");
  check_dns_label(r, d.name, at.field("name"));
  const FieldPath ap = at.field("attributes");
  const Node& attributes = r.map_field(m, "attributes", at);
  const FieldPath cp = at.field("capacity");
  const Node& capacity = r.map_field(m, "capacity", at);
  if (attributes.size() + capacity.size() > kMaxAttributesAndCapacity) {
    r.fail(at, "has " + std::to_string(attributes.size() + capacity.size()) +
                   " attributes and capacities, more than the " +
                   std::to_string(kMaxAttributesAndCapacity) + " allowed");
  }
  for (const input::NodeEntry& e : attributes.entries()) {
    const FieldPath ep = ap.field(e.key);
    const std::string key(e.key);
    check_qualified_name(r, key, ep);
    put_qualified(d.attributes, key, driver, attribute(r, r.mapping(e.value, ep), ep));
  }
  for (const input::NodeEntry& e : capacity.entries()) {
    const FieldPath ep = cp.field(e.key);
    const std::string key(e.key);
    check_qualified_name(r, key, ep);
    put_qualified(d.capacity, key, driver, quantity_value(r, r.mapping(e.value, ep), ep));
  }
  const FieldPath up = at.field("consumesCounters");
  const std::vector<const Node*> uses =
      bounded_list(r, m, "consumesCounters", at, kMaxConsumptions);
  for (size_t i = 0; i < uses.size(); ++i) {
    const Node& u = r.mapping(*uses[i], up.index(i));
    std::string set = counter_set_name(r, u, "counterSet", up.index(i));
    if (d.consumes.count(set) > 0) {
      r.fail(up.index(i).field("counterSet"),
             quote(set) + " is listed twice; give each counter set once");
    }
    d.consumes.emplace(std::move(set), counters(r, u, up.index(i)));
  }
  const FieldPath tp = at.field("taints");
  const std::vector<const Node*> taints = bounded_list(r, m, "taints", at, kMaxTaints);
  for (size_t i = 0; i < taints.size(); ++i)
    if (auto t = taint(r, r.mapping(*taints[i], tp.index(i)), tp.index(i)))
      d.taints.push_back(std::move(*t));
  device_nodes(r, m, at, per_device, d);
  return d;
}

void read_pool(const FieldReader& r, const Node& spec, const FieldPath& spec_path,
               model::ResourceSlice& s) {
  const FieldPath at = spec_path.field("pool");
  const Node& pool = FieldReader::get(spec, "pool");
  if (!FieldReader::present(pool))
    r.fail(at, "is missing; give pool: {name, generation, resourceSliceCount}");
  const Node& m = r.mapping(pool, at);
  s.pool = r.text_field(m, "name", at);
  if (s.pool.empty()) r.fail(at.field("name"), "is missing; name the pool, e.g. the node's name");
  check_pool_name(r, s.pool, at.field("name"));
  s.pool_generation = int64_field(r, m, "generation", at).value_or(0);
  if (s.pool_generation < 0)
    r.fail(at.field("generation"),
           std::to_string(s.pool_generation) + " is negative; write 0 or more");
  const std::optional<int64_t> count = int64_field(r, m, "resourceSliceCount", at);
  if (!count) {
    r.fail(at.field("resourceSliceCount"),
           "is missing; give how many ResourceSlices make up the pool at this generation, e.g. 1");
  }
  if (*count <= 0) {
    r.fail(at.field("resourceSliceCount"),
           std::to_string(*count) + " is not greater than zero; a pool has 1 slice or more");
  }
  s.pool_slice_count = *count;
}

/// Exactly one of nodeName, nodeSelector, allNodes and perDeviceNodeSelection.
void read_nodes(const FieldReader& r, const Node& spec, const FieldPath& at,
                model::ResourceSlice& s) {
  std::vector<std::string> given;
  if (const Node& n = FieldReader::get(spec, "nodeName"); FieldReader::present(n)) {
    s.node_name = r.text(n, at.field("nodeName"));
    if (s.node_name.empty())
      r.fail(at.field("nodeName"), "is empty; name the node, or remove nodeName");
    check_dns_subdomain(r, s.node_name, at.field("nodeName"));
    given.emplace_back("nodeName");
  }
  if (const Node& n = FieldReader::get(spec, "nodeSelector"); FieldReader::present(n)) {
    const FieldPath sp = at.field("nodeSelector");
    s.node_selector = node_selector(r, r.mapping(n, sp), sp);
    // The API's rule, so that slices' selectors merge when one claim takes
    // devices from several.
    if (s.node_selector->size() != 1) {
      r.fail(sp.field("nodeSelectorTerms"),
             "has " + std::to_string(s.node_selector->size()) +
                 " terms; a ResourceSlice's node selector has exactly one");
    }
    given.emplace_back("nodeSelector");
  }
  for (std::string_view flag : {"allNodes", "perDeviceNodeSelection"}) {
    const std::optional<bool> v = r.bool_field(spec, flag, at);
    if (!v) continue;
    if (!*v) r.fail(at.field(flag), "is false; set it to true, or remove it");
    (flag == "allNodes" ? s.all_nodes : s.per_device_nodes) = true;
    given.emplace_back(flag);
  }
  if (given.empty()) {
    r.fail(at,
           "says nowhere its devices are available; give exactly one of nodeName, "
           "nodeSelector, allNodes: true and perDeviceNodeSelection: true");
  }
  if (given.size() > 1) {
    r.fail(at, "sets " + joined(given) +
                   "; give exactly one of nodeName, nodeSelector, allNodes and "
                   "perDeviceNodeSelection");
  }
}

}  // namespace

model::ResourceSlice decode_resource_slice(const ObjectFields& f) {
  const FieldReader& r = f.r;
  model::ResourceSlice s;
  const FieldPath spec_path = f.root.field("spec");
  const Node& spec = r.map_field(f.obj, "spec", f.root);
  s.driver = r.text_field(spec, "driver", spec_path);
  if (s.driver.empty())
    r.fail(spec_path.field("driver"), "is missing; name the DRA driver, e.g. gpu.example.com");
  check_driver_name(r, s.driver, spec_path.field("driver"));
  read_pool(r, spec, spec_path, s);
  read_nodes(r, spec, spec_path, s);
  const bool has_devices = FieldReader::present(FieldReader::get(spec, "devices"));
  const bool has_counters = FieldReader::present(FieldReader::get(spec, "sharedCounters"));
  if (has_devices && has_counters) {
    r.fail(spec_path,
           "has both devices and sharedCounters; publish a pool's counter sets in a "
           "slice of their own");
  }

  const FieldPath dp = spec_path.field("devices");
  const std::vector<const Node*> devices = bounded_list(r, spec, "devices", spec_path, kMaxDevices);
  bool advanced = false;
  for (size_t i = 0; i < devices.size(); ++i) {
    model::Device d =
        device(r, r.mapping(*devices[i], dp.index(i)), dp.index(i), s.driver, s.per_device_nodes);
    for (const model::Device& earlier : s.devices)
      if (earlier.name == d.name)
        r.fail(dp.index(i).field("name"),
               quote(d.name) + " is listed twice; name each device once");
    advanced = advanced || !d.taints.empty() || !d.consumes.empty();
    d.cel = model::device_cel(s.driver, d);
    s.devices.push_back(std::move(d));
  }
  if (advanced && s.devices.size() > kMaxAdvancedDevices) {
    r.fail(dp, std::to_string(s.devices.size()) + " devices are more than the " +
                   std::to_string(kMaxAdvancedDevices) +
                   " allowed where devices have taints or consume counters; split the slice");
  }

  const FieldPath cp = spec_path.field("sharedCounters");
  const std::vector<const Node*> sets =
      bounded_list(r, spec, "sharedCounters", spec_path, kMaxCounterSets);
  for (size_t i = 0; i < sets.size(); ++i) {
    const Node& set = r.mapping(*sets[i], cp.index(i));
    std::string name = counter_set_name(r, set, "name", cp.index(i));
    if (s.counters.count(name) > 0)
      r.fail(cp.index(i).field("name"), quote(name) + " is listed twice; name each set once");
    s.counters.emplace(std::move(name), counters(r, set, cp.index(i)));
  }
  return s;
}

}  // namespace scoria::decode
