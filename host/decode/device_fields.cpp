#include "decode/device_fields.h"

#include <charconv>
#include <limits>
#include <system_error>
#include <utility>

#include "decode/scheduling_terms.h"

namespace scoria::decode {

namespace {

bool dns_char(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool label_char(char c) { return dns_char(c) || (c >= 'A' && c <= 'Z'); }

/// [a-z0-9]([-a-z0-9]*[a-z0-9])?, of any length.
bool dns_label_chars(std::string_view s) {
  if (s.empty() || !dns_char(s.front()) || !dns_char(s.back())) return false;
  for (char c : s)
    if (!dns_char(c) && c != '-') return false;
  return true;
}

/// Kubernetes' IsDNS1123Subdomain: labels joined by '.', at most 253 in all.
bool is_subdomain(std::string_view s) {
  if (s.empty() || s.size() > 253) return false;
  for (size_t start = 0;;) {
    const size_t dot = s.find('.', start);
    if (!dns_label_chars(s.substr(start, dot - start))) return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

/// A label name's name part and a label value: ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9].
bool label_value_chars(std::string_view s) {
  if (s.empty() || !label_char(s.front()) || !label_char(s.back())) return false;
  for (char c : s)
    if (!label_char(c) && c != '-' && c != '_' && c != '.') return false;
  return true;
}

/// [A-Za-z_][A-Za-z0-9_]*
bool c_identifier(std::string_view s) {
  if (s.empty() || (!label_char(s.front()) && s.front() != '_') ||
      (s.front() >= '0' && s.front() <= '9'))
    return false;
  for (char c : s)
    if (!label_char(c) && c != '_') return false;
  return true;
}

int64_t int64_value(const FieldReader& r, const Node& n, const FieldPath& at) {
  constexpr uint64_t kMax = std::numeric_limits<int64_t>::max();
  if (n.type() == Node::Type::kInt) return n.as_int();
  if (n.type() == Node::Type::kUint) {
    if (n.as_uint() <= kMax) return n.as_int();
    r.fail(at, std::to_string(n.as_uint()) + " is out of range; write a 64-bit whole number");
  }
  const std::string text = r.text(n, at);
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec == std::errc() && end == text.data() + text.size() && !text.empty()) return v;
  if (ec == std::errc::result_out_of_range)
    r.fail(at, text + " is out of range; write a 64-bit whole number");
  r.fail(at, quote(text) + " is not a whole number; write e.g. 1");
}

/// "req" or "req/alt", naming a request (or one of its alternatives) of the claim.
void check_request_ref(const FieldReader& r, const std::string& ref, const FieldPath& at,
                       const model::DeviceClaimSpec& spec) {
  if (names_request(spec, ref)) return;
  r.fail(at, quote(ref) +
                 " names no request of the claim; give a request's name, or REQUEST/ALTERNATIVE "
                 "for one of a request's firstAvailable");
}

std::optional<model::DeviceToleration> device_toleration(const FieldReader& r, const Node& m,
                                                         const FieldPath& at) {
  model::DeviceToleration t;
  t.key = r.text_field(m, "key", at);
  if (!t.key.empty()) check_label_name(r, t.key, at.field("key"));
  t.value = r.text_field(m, "value", at);
  // The API server's default is Equal.
  const std::string op = r.text_field(m, "operator", at);
  if (op.empty() || op == "Equal") {
    t.op = model::SelectorOp::Equal;
    if (!t.value.empty()) check_label_value(r, t.value, at.field("value"));
  } else if (op == "Exists") {
    t.op = model::SelectorOp::Exists;
    if (!t.value.empty())
      r.fail(at.field("value"), "must be empty with operator Exists; remove the value");
  } else {
    r.fail(at.field("operator"), quote(op) + " is not a toleration operator; use Equal or Exists");
  }
  const std::string effect = r.text_field(m, "effect", at);
  if (effect == "NoSchedule") {
    t.effect = static_cast<uint32_t>(model::TaintEffect::NoSchedule);
  } else if (effect == "NoExecute") {
    t.effect = static_cast<uint32_t>(model::TaintEffect::NoExecute);
  } else if (effect == "None") {
    // It tolerates only taints that have no effect, which are not kept.
    return std::nullopt;
  } else if (!effect.empty()) {
    r.fail(at.field("effect"),
           quote(effect) + " is not a device taint effect; use NoSchedule, NoExecute or None");
  }
  return t;
}

/// An `exactly` request, or (`alternative`) one of a request's firstAvailable.
model::DeviceAsk device_ask(const FieldReader& r, const Node& m, const FieldPath& at,
                            bool alternative) {
  model::DeviceAsk a;
  if (alternative) {
    a.name = r.text_field(m, "name", at);
    if (a.name.empty())
      r.fail(at.field("name"), "is missing; name the alternative (constraints use REQUEST/NAME)");
    check_dns_label(r, a.name, at.field("name"));
  }
  a.device_class = r.text_field(m, "deviceClassName", at);
  if (a.device_class.empty())
    r.fail(at.field("deviceClassName"), "is missing; name the DeviceClass to allocate from");
  check_dns_subdomain(r, a.device_class, at.field("deviceClassName"));
  a.selectors = device_selectors(r, m, at);
  const std::string mode = r.text_field(m, "allocationMode", at);
  if (mode == "All") {
    a.mode = model::AllocationMode::All;
  } else if (!mode.empty() && mode != "ExactCount") {
    r.fail(at.field("allocationMode"),
           quote(mode) + " is not an allocation mode; use ExactCount or All");
  }
  // Absent and 0 are the same to the API server, which defaults an
  // ExactCount request's count to 1.
  const int64_t count = int64_field(r, m, "count", at).value_or(0);
  if (a.mode == model::AllocationMode::All) {
    if (count != 0)
      r.fail(at.field("count"), "must not be given when allocationMode is All; remove it");
    a.count = 0;
  } else if (count < 0) {
    r.fail(at.field("count"),
           std::to_string(count) + " is not greater than zero; ask for 1 or more devices");
  } else {
    a.count = count == 0 ? 1 : count;
  }
  // firstAvailable's alternatives have no adminAccess in the API.
  if (!alternative) a.admin_access = r.bool_field(m, "adminAccess", at).value_or(false);
  const FieldPath tp = at.field("tolerations");
  const std::vector<const Node*> tolerations =
      bounded_list(r, m, "tolerations", at, kMaxTolerations);
  for (size_t i = 0; i < tolerations.size(); ++i)
    if (auto t = device_toleration(r, r.mapping(*tolerations[i], tp.index(i)), tp.index(i)))
      a.tolerations.push_back(std::move(*t));
  const FieldPath cp = at.field("capacity");
  const Node& capacity = r.map_field(m, "capacity", at);
  const FieldPath rp = cp.field("requests");
  const Node& requests = r.map_field(capacity, "requests", cp);
  if (requests.size() > kMaxAttributesAndCapacity)
    r.fail(rp, "has " + std::to_string(requests.size()) + " entries, more than the " +
                   std::to_string(kMaxAttributesAndCapacity) + " allowed");
  for (const input::NodeEntry& e : requests.entries()) {
    const FieldPath ep = rp.field(e.key);
    const std::string key(e.key);
    check_qualified_name(r, key, ep);
    const cel::Quantity q = quantity(r, e.value, ep);
    if (cel::sign(q) < 0) r.fail(ep, cel::to_string(q) + " is negative; request 0 or more");
    a.capacity_requests.emplace(key, q);
  }
  return a;
}

model::DeviceRequest device_request(const FieldReader& r, const Node& m, const FieldPath& at,
                                    const std::vector<model::DeviceRequest>& earlier) {
  model::DeviceRequest req;
  req.name = r.text_field(m, "name", at);
  if (req.name.empty()) {
    r.fail(at.field("name"),
           "is missing; name the request (containers' resources.claims and constraints use it)");
  }
  check_dns_label(r, req.name, at.field("name"));
  for (const model::DeviceRequest& e : earlier)
    if (e.name == req.name)
      r.fail(at.field("name"),
             quote(req.name) + " is used by an earlier request; names must differ");
  const Node& exactly = FieldReader::get(m, "exactly");
  const FieldPath fp = at.field("firstAvailable");
  const std::vector<const Node*> first =
      bounded_list(r, m, "firstAvailable", at, kMaxFirstAvailable);
  if (!FieldReader::present(exactly) && first.empty()) {
    r.fail(at,
           "needs exactly one of exactly and firstAvailable; give exactly: {deviceClassName: "
           "...}, or alternatives in firstAvailable");
  }
  if (FieldReader::present(exactly) && !first.empty())
    r.fail(at, "has both exactly and firstAvailable; give one of them");
  if (FieldReader::present(exactly)) {
    const FieldPath ep = at.field("exactly");
    req.exactly = device_ask(r, r.mapping(exactly, ep), ep, false);
    return req;
  }
  for (size_t i = 0; i < first.size(); ++i) {
    const FieldPath ap = fp.index(i);
    model::DeviceAsk a = device_ask(r, r.mapping(*first[i], ap), ap, true);
    for (const model::DeviceAsk& e : req.first_available)
      if (e.name == a.name)
        r.fail(ap.field("name"),
               quote(a.name) + " is used by an earlier alternative; names must differ");
    req.first_available.push_back(std::move(a));
  }
  return req;
}

/// A constraint's attribute: fully qualified (a domain, '/', a name).
std::string constraint_attribute(const FieldReader& r, const Node& m, std::string_view key,
                                 const FieldPath& at) {
  const FieldPath ap = at.field(key);
  std::string name = r.text_field(m, key, at);
  if (name.empty()) r.fail(ap, "is empty; name the attribute, e.g. gpu.example.com/numa");
  check_qualified_name(r, name, ap);
  if (name.find('/') == std::string::npos) {
    r.fail(ap, quote(name) + " has no domain; a constraint names its attribute fully, e.g. " +
                   quote("gpu.example.com/" + name));
  }
  return name;
}

model::DeviceConstraint device_constraint(const FieldReader& r, const Node& m, const FieldPath& at,
                                          const model::DeviceClaimSpec& spec) {
  model::DeviceConstraint c;
  const FieldPath rp = at.field("requests");
  const std::vector<const Node*> requests = bounded_list(r, m, "requests", at, kMaxDeviceRequests);
  for (size_t i = 0; i < requests.size(); ++i) {
    std::string ref = r.text(*requests[i], rp.index(i));
    check_request_ref(r, ref, rp.index(i), spec);
    for (const std::string& earlier : c.requests)
      if (earlier == ref)
        r.fail(rp.index(i), quote(ref) + " is listed twice; list each request once");
    c.requests.push_back(std::move(ref));
  }
  const bool match = FieldReader::present(FieldReader::get(m, "matchAttribute"));
  const bool distinct = FieldReader::present(FieldReader::get(m, "distinctAttribute"));
  if (match && distinct)
    r.fail(at, "has both matchAttribute and distinctAttribute; give one of them");
  if (match) {
    c.match_attribute = constraint_attribute(r, m, "matchAttribute", at);
  } else if (distinct) {
    c.distinct_attribute = constraint_attribute(r, m, "distinctAttribute", at);
  } else {
    r.fail(at.field("matchAttribute"),
           "is missing; name the attribute the devices must share, e.g. gpu.example.com/numa");
  }
  return c;
}

}  // namespace

std::vector<const Node*> bounded_list(const FieldReader& r, const Node& map, std::string_view key,
                                      const FieldPath& parent, size_t most) {
  std::vector<const Node*> out;
  r.each(map, key, parent, [&](const Node& n, const FieldPath&) { out.push_back(&n); });
  if (out.size() > most) {
    r.fail(parent.field(key), std::to_string(out.size()) + " items are more than the " +
                                  std::to_string(most) + " allowed; list at most " +
                                  std::to_string(most));
  }
  return out;
}

std::optional<int64_t> int64_field(const FieldReader& r, const Node& map, std::string_view key,
                                   const FieldPath& parent) {
  const Node& n = FieldReader::get(map, key);
  if (!FieldReader::present(n)) return std::nullopt;
  return int64_value(r, n, parent.field(key));
}

cel::Quantity quantity(const FieldReader& r, const Node& n, const FieldPath& at) {
  const std::string text = r.text(n, at);
  if (text.empty()) r.fail(at, "has no value; write a quantity, e.g. \"4\" or \"40Gi\"");
  const std::optional<cel::Quantity> q = cel::parse_quantity(text);
  if (!q) r.fail(at, quote(text) + " is not a quantity; write e.g. \"4\", \"500m\" or \"40Gi\"");
  return *q;
}

cel::Quantity quantity_value(const FieldReader& r, const Node& m, const FieldPath& at) {
  const Node& value = FieldReader::get(m, "value");
  if (!FieldReader::present(value))
    r.fail(at.field("value"), "is missing; give the amount, e.g. value: \"40Gi\"");
  return quantity(r, value, at.field("value"));
}

void check_dns_label(const FieldReader& r, std::string_view value, const FieldPath& at) {
  if (value.size() <= 63 && dns_label_chars(value)) return;
  r.fail(at, quote(value) +
                 " is not a DNS label: use at most 63 lower case letters, digits and '-', "
                 "starting and ending with a letter or digit (e.g. \"gpu-0\")");
}

void check_dns_subdomain(const FieldReader& r, std::string_view value, const FieldPath& at) {
  if (is_subdomain(value)) return;
  r.fail(at, quote(value) +
                 " is not a DNS subdomain: use at most 253 lower case letters, digits, '-' and "
                 "'.', starting and ending with a letter or digit (e.g. \"gpu.example.com\")");
}

void check_driver_name(const FieldReader& r, std::string_view value, const FieldPath& at) {
  std::string lower(value);
  for (char& c : lower)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  if (value.size() <= 63 && is_subdomain(lower)) return;
  r.fail(at, quote(value) +
                 " is not a driver name: use a DNS subdomain of at most 63 characters, e.g. "
                 "\"gpu.example.com\"");
}

void check_pool_name(const FieldReader& r, std::string_view value, const FieldPath& at) {
  bool ok = !value.empty() && value.size() <= 253;
  for (size_t start = 0; ok;) {
    const size_t slash = value.find('/', start);
    ok = is_subdomain(value.substr(start, slash - start));
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  if (ok) return;
  r.fail(at, quote(value) +
                 " is not a pool name: use DNS subdomains separated by '/', at most 253 "
                 "characters (e.g. \"node-1\" or \"rack-a/gpus\")");
}

void check_qualified_name(const FieldReader& r, std::string_view value, const FieldPath& at) {
  const size_t slash = value.find('/');
  const std::string_view id = slash == std::string_view::npos ? value : value.substr(slash + 1);
  if (slash != std::string_view::npos) {
    if (id.find('/') != std::string_view::npos)
      r.fail(at, quote(value) + " holds more than one '/'; write DOMAIN/NAME or NAME");
    const std::string_view domain = value.substr(0, slash);
    if (domain.empty()) r.fail(at, quote(value) + " has an empty domain; write DOMAIN/NAME");
    if (domain.size() > 63 || !is_subdomain(domain)) {
      r.fail(at, quote(value) +
                     ": the domain is not a DNS subdomain of at most 63 characters (e.g. "
                     "\"gpu.example.com\")");
    }
  }
  if (id.size() > 32 || !c_identifier(id)) {
    r.fail(at, quote(value) +
                   ": the name is not a C identifier of at most 32 characters (letters, digits "
                   "and '_', not starting with a digit, e.g. \"memory\" or \"numa_node\")");
  }
}

void check_label_name(const FieldReader& r, std::string_view value, const FieldPath& at) {
  const size_t slash = value.find('/');
  const std::string_view name = slash == std::string_view::npos ? value : value.substr(slash + 1);
  bool ok = name.size() <= 63 && label_value_chars(name);
  if (slash != std::string_view::npos) ok = ok && is_subdomain(value.substr(0, slash));
  if (ok) return;
  r.fail(at,
         quote(value) +
             " is not a label name: write NAME or PREFIX/NAME, NAME at most 63 letters, "
             "digits, '-', '_' and '.', PREFIX a DNS subdomain (e.g. \"example.com/unhealthy\")");
}

void check_label_value(const FieldReader& r, std::string_view value, const FieldPath& at) {
  if (value.empty() || (value.size() <= 63 && label_value_chars(value))) return;
  r.fail(at, quote(value) +
                 " is not a label value: use at most 63 letters, digits, '-', '_' and '.', "
                 "starting and ending with a letter or digit");
}

bool names_request(const model::DeviceClaimSpec& spec, std::string_view ref) {
  const size_t slash = ref.find('/');
  const std::string_view request = ref.substr(0, slash);
  for (const model::DeviceRequest& req : spec.requests) {
    if (req.name != request) continue;
    if (slash == std::string_view::npos) return true;
    const std::string_view alternative = ref.substr(slash + 1);
    for (const model::DeviceAsk& a : req.first_available)
      if (a.name == alternative) return true;
    return false;
  }
  return false;
}

std::string qualified(std::string_view name, std::string_view driver) {
  if (name.find('/') != std::string_view::npos) return std::string(name);
  return std::string(driver) + "/" + std::string(name);
}

std::vector<model::DeviceSelector> device_selectors(const FieldReader& r, const Node& map,
                                                    const FieldPath& parent) {
  std::vector<model::DeviceSelector> out;
  const FieldPath at = parent.field("selectors");
  const std::vector<const Node*> items = bounded_list(r, map, "selectors", parent, kMaxSelectors);
  for (size_t i = 0; i < items.size(); ++i) {
    const FieldPath sp = at.index(i);
    const Node& cel = FieldReader::get(r.mapping(*items[i], sp), "cel");
    const FieldPath cp = sp.field("cel");
    if (!FieldReader::present(cel))
      r.fail(cp, "is missing; give the selector as cel: {expression: ...}");
    std::string expression = r.text_field(r.mapping(cel, cp), "expression", cp);
    const FieldPath ep = cp.field("expression");
    if (expression.empty()) {
      r.fail(ep,
             "is missing; write a CEL expression over the device, e.g. "
             "device.driver == \"gpu.example.com\"");
    }
    if (expression.size() > kMaxCelLength) {
      r.fail(ep, std::to_string(expression.size()) + " bytes are more than the " +
                     std::to_string(kMaxCelLength) + " allowed; shorten the expression");
    }
    out.push_back({std::move(expression)});
  }
  return out;
}

std::vector<model::NodeSelectorTerm> node_selector(const FieldReader& r, const Node& m,
                                                   const FieldPath& at) {
  std::vector<model::NodeSelectorTerm> terms;
  r.each_map(m, "nodeSelectorTerms", at,
             [&](const Node& t, const FieldPath& tp) { terms.push_back(selector_term(r, t, tp)); });
  if (terms.empty()) {
    r.fail(at.field("nodeSelectorTerms"),
           "is empty; give at least one term (matchExpressions or matchFields)");
  }
  return terms;
}

model::DeviceClaimSpec device_claim_spec(const FieldReader& r, const Node& spec,
                                         const FieldPath& spec_path) {
  model::DeviceClaimSpec out;
  const FieldPath at = spec_path.field("devices");
  const Node& devices = r.map_field(spec, "devices", spec_path);
  const FieldPath rp = at.field("requests");
  const std::vector<const Node*> requests =
      bounded_list(r, devices, "requests", at, kMaxDeviceRequests);
  for (size_t i = 0; i < requests.size(); ++i)
    out.requests.push_back(
        device_request(r, r.mapping(*requests[i], rp.index(i)), rp.index(i), out.requests));
  const FieldPath cp = at.field("constraints");
  const std::vector<const Node*> constraints =
      bounded_list(r, devices, "constraints", at, kMaxConstraints);
  for (size_t i = 0; i < constraints.size(); ++i)
    out.constraints.push_back(
        device_constraint(r, r.mapping(*constraints[i], cp.index(i)), cp.index(i), out));
  out.counted = model::counted_devices(out.requests);
  return out;
}

}  // namespace scoria::decode
