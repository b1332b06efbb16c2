// The block reader (input/block_yaml.h) against libfyaml: a text the block
// reader reads must read to the same documents by libfyaml. Anything else
// is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "../tests/unit/block_yaml_compare.h"
#include "input/limits.h"
#include "model/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace scoria;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const input::Limits& limits = input::kApplyLimits;
  try {
    input::check_text(text, "t", limits);  // what every reader checks first
  } catch (const InputError&) {
    return 0;
  }
  if (text.substr(0, 3) == "\xEF\xBB\xBF") return 0;  // stripped before the readers
  const auto block = test::read_with_block_reader(text, limits);
  if (!block) return 0;
  if (*block != test::read_with_libfyaml(text, limits)) std::abort();
  return 0;
}
