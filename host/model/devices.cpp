#include "model/devices.h"

#include <map>
#include <utility>

namespace scoria::model {

cel::Value device_cel(const std::string& driver, const Device& device) {
  const auto by_domain = [&](const auto& entries, auto value_of) {
    std::map<std::string, cel::Map> domains;
    for (const auto& [name, v] : entries) {
      const size_t slash = name.find('/');
      const std::string domain = slash == std::string::npos ? driver : name.substr(0, slash);
      const std::string id = slash == std::string::npos ? name : name.substr(slash + 1);
      domains[domain].emplace_back(cel::Value(id), value_of(v));
    }
    cel::Map out;
    for (auto& [domain, inner] : domains) out.emplace_back(cel::Value(domain), cel::Value(inner));
    out.absent = std::make_shared<const cel::Value>(cel::Value(cel::Map{}));
    return cel::Value(std::move(out));
  };
  const auto attribute = [](const DeviceAttribute& a) {
    return std::visit([](const auto& v) { return cel::Value(v); }, a.value);
  };
  const auto quantity = [](const cel::Quantity& q) { return cel::Value(q); };
  cel::Map d;
  d.emplace_back(cel::Value("driver"), cel::Value(driver));
  d.emplace_back(cel::Value("attributes"), by_domain(device.attributes, attribute));
  d.emplace_back(cel::Value("capacity"), by_domain(device.capacity, quantity));
  d.emplace_back(cel::Value("allowMultipleAllocations"), cel::Value(false));
  return cel::Value(std::move(d));
}

bool names_pod(const Pod& pod, const std::string& name, const std::string& uid) {
  return pod.uid.empty() || uid.empty() ? name == pod.name : uid == pod.uid;
}

std::string made_claim_name(const Pod& pod, const DeviceClaimRef& ref) {
  std::string out;
  append_made_claim_name(out, pod, ref);
  return out;
}

void append_made_claim_name(std::string& out, const Pod& pod, const DeviceClaimRef& ref) {
  out += pod.name;
  out += '-';
  out += ref.name;
}

std::vector<DeviceAmount> counted_devices(const std::vector<DeviceRequest>& requests) {
  std::map<std::pair<std::string, std::string>, double> sums;
  for (const DeviceRequest& r : requests) {
    if (!r.exactly || r.exactly->mode != AllocationMode::ExactCount) continue;
    const DeviceAsk& a = *r.exactly;
    const auto count = static_cast<double>(a.count);
    sums[{a.device_class, {}}] += count;
    for (const auto& [dim, q] : a.capacity_requests)
      sums[{a.device_class, dim}] += cel::as_double(q) * count;
  }
  std::vector<DeviceAmount> out;
  out.reserve(sums.size());
  for (const auto& [at, amount] : sums) out.push_back({at.first, at.second, amount});
  return out;
}

}  // namespace scoria::model
