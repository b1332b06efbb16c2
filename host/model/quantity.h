// Kubernetes resource quantities ("500m", "4Gi", "1e3"). The parser and the
// units are the SDK's (scoria/quantity.hpp), so that a plugin reading a
// quantity from an object's JSON agrees with the host on every spelling.
#pragma once

#include <string>
#include <string_view>

namespace scoria::model {

/// Parses a Kubernetes quantity into its plain value ("500m" -> 0.5,
/// "4Gi" -> 4294967296). Throws std::invalid_argument with a message saying
/// what is wrong and what a valid quantity looks like; that includes a
/// magnitude beyond Kubernetes' cap of 2^63-1 ("1e307", "9Ei").
double parse_quantity(std::string_view text);

/// Formats `value` of resource `name` (cpu in millicores, memory in bytes,
/// pods as a count, extended resources in milli-units) the way kubectl
/// shows it: cpu "4" or "500m", memory "8Gi" / "1536Mi" / "1000", others
/// as plain numbers ("2").
std::string format_quantity(std::string_view name, double value);

/// A queue status' device-class amount (Volcano's "deviceclass/CLASS", a
/// count of devices, and "DIM.deviceclass/CLASS", a consumable capacity in
/// plain units) as kubectl shows it: the count plainly, the capacity as
/// resource DIM ("16Gi" of memory).
std::string format_device_amount(std::string_view name, double value);

}  // namespace scoria::model
