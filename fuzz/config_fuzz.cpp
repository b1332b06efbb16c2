// The scheduler config reader: TOML, Volcano's YAML (and JSON), and a
// ConfigMap holding it; the first byte picks the format, as a file's
// extension would. A refusal is an InputError; anything else is a finding.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "config/scheduler_config.h"
#include "model/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  static constexpr std::array<const char*, 4> kNames{"fuzz.toml", "fuzz.yaml", "fuzz.json",
                                                     "fuzz.conf"};
  const std::string name = kNames[data[0] % kNames.size()];
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  try {
    (void)scoria::config::parse_config(text, name);
  } catch (const scoria::InputError&) {
  }
  return 0;
}
