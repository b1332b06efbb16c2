// Kubernetes quantities: parsed or refused with std::invalid_argument, and
// what parses is finite, bounded and formats back without fault.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string_view>

#include "model/quantity.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  double value = 0;
  try {
    value = scoria::model::parse_quantity(text);
  } catch (const std::invalid_argument&) {
    return 0;
  }
  // Kubernetes caps quantities at 2^63-1; nothing past it, and never NaN or
  // infinity, reaches the scheduler.
  if (!std::isfinite(value) || std::fabs(value) > 9.3e18) std::abort();
  (void)scoria::model::format_quantity("cpu", value * 1000);
  (void)scoria::model::format_quantity("memory", value);
  return 0;
}
