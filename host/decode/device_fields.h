// Fields the Dynamic Resource Allocation kinds (resource.k8s.io/v1) share:
// the names the API server checks (drivers, pools, devices, requests,
// attributes), CEL selectors, node selectors, whole numbers and quantities,
// and the DeviceClaimSpec a ResourceClaim and a ResourceClaimTemplate both
// carry, each refused as kube-apiserver's validation refuses it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cel/quantity.h"
#include "decode/field_reader.h"
#include "model/devices.h"

namespace scoria::decode {

/// How many of each a claim, a class or a slice may list (the API's limits).
inline constexpr size_t kMaxDeviceRequests = 32;
inline constexpr size_t kMaxSelectors = 32;
inline constexpr size_t kMaxFirstAvailable = 8;
inline constexpr size_t kMaxTolerations = 16;
// A device's attributes and capacities together; a request's capacities.
inline constexpr size_t kMaxAttributesAndCapacity = 32;
inline constexpr size_t kMaxConstraints = 32;
inline constexpr size_t kMaxCelLength = 10 * 1024;

/// The items of the list `key` in `map` (none when absent), refused when
/// there are more than `most` of them, as the API server counts them
/// before it looks at any.
std::vector<const Node*> bounded_list(const FieldReader& r, const Node& map, std::string_view key,
                                      const FieldPath& parent, size_t most);

/// A whole number (int64); nullopt when absent.
std::optional<int64_t> int64_field(const FieldReader& r, const Node& map, std::string_view key,
                                   const FieldPath& parent);

/// A quantity, exactly (Kubernetes' syntax: "4", "40Gi", "1.5").
cel::Quantity quantity(const FieldReader& r, const Node& n, const FieldPath& at);
/// `{value: QUANTITY}` (a capacity, a counter), the value required.
cel::Quantity quantity_value(const FieldReader& r, const Node& m, const FieldPath& at);

/// Each check fails at `at` naming what is wrong and the form expected.
void check_dns_label(const FieldReader& r, std::string_view value, const FieldPath& at);
void check_dns_subdomain(const FieldReader& r, std::string_view value, const FieldPath& at);
/// A driver's name, as a CSI driver's: a DNS subdomain of at most 63.
void check_driver_name(const FieldReader& r, std::string_view value, const FieldPath& at);
/// A pool's name: DNS subdomains separated by '/', at most 253 in all.
void check_pool_name(const FieldReader& r, std::string_view value, const FieldPath& at);
/// An attribute's or a capacity's name: a C identifier (at most 32), or a
/// driver-style domain, '/', and one.
void check_qualified_name(const FieldReader& r, std::string_view value, const FieldPath& at);
/// A label name (taint and toleration keys) and a label value.
void check_label_name(const FieldReader& r, std::string_view value, const FieldPath& at);
void check_label_value(const FieldReader& r, std::string_view value, const FieldPath& at);

/// Whether `ref` ("req", or "req/alt" for one of its firstAvailable
/// alternatives) names a request of `spec`.
bool names_request(const model::DeviceClaimSpec& spec, std::string_view ref);

/// `name` as CEL sees it: a name without a domain is the driver's.
std::string qualified(std::string_view name, std::string_view driver);

/// `selectors` of a class or a request: each {cel: {expression}}, the
/// expression a non-empty string of at most 10 KiB. Not compiled here: the
/// allocator compiles it.
std::vector<model::DeviceSelector> device_selectors(const FieldReader& r, const Node& map,
                                                    const FieldPath& parent);

/// A v1.NodeSelector (`m` at `at`): at least one term, each as a pod's
/// required node affinity term.
std::vector<model::NodeSelectorTerm> node_selector(const FieldReader& r, const Node& m,
                                                   const FieldPath& at);

/// A DeviceClaimSpec's devices (`spec` at `spec_path`: a claim's spec, a
/// template's spec.spec): requests, each `exactly` one ask or
/// `firstAvailable` alternatives, and constraints naming them.
model::DeviceClaimSpec device_claim_spec(const FieldReader& r, const Node& spec,
                                         const FieldPath& spec_path);

}  // namespace scoria::decode
