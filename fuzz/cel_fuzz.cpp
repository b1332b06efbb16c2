// CEL expressions, as a DRA selector's text: parsed or refused with a
// position, and what parses evaluates against a device to a value or an
// Error value, within its cost, without fault.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <variant>

#include "cel/program.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace scoria::cel;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto compiled = Program::compile(text);
  if (auto* error = std::get_if<ParseError>(&compiled)) {
    if (error->message.empty() || error->at > text.size()) std::abort();
    return 0;
  }
  const Map gpu = {{Value("model"), Value("a100")},
                   {Value("memory"), Value(int64_t{40})},
                   {Value("mig"), Value(true)},
                   {Value("driverVersion"), Value(*parse_semver("1.2.3-rc.1"))},
                   {Value("tags"), Value(List{Value("x"), Value(uint64_t{3}), Value(1.5)})}};
  const Variables variables = {
      {"device",
       Value(Map{{Value("driver"), Value("gpu.example.com")},
                 {Value("attributes"), Value(Map{{Value("gpu.example.com"), Value(gpu)}})},
                 {Value("capacity"),
                  Value(Map{{Value("gpu.example.com"),
                             Value(Map{{Value("memory"), Value(*parse_quantity("40Gi"))}})}})}})}};
  // A small limit, so that a costly expression is cut rather than slow.
  const Value v = std::get<Program>(compiled).evaluate(variables, 20000);
  (void)debug_string(v);
  return 0;
}
