#include "input/limits.h"

#include <string>

#include "input/utf8.h"
#include "model/error.h"

namespace scoria::input {

void check_size(std::string_view text, std::string_view origin, const Limits& limits) {
  if (text.size() > limits.max_bytes) {
    throw InputError(std::string(origin) + ": " + std::to_string(text.size()) +
                     " bytes is more than the limit of " + std::to_string(limits.max_bytes) +
                     "; split the input");
  }
}

ByteFaults find_byte_faults(std::string_view text) {
  ByteFaults faults;
  faults.bad_utf8 = invalid_utf8_at(text);
  if (const size_t nul = text.find('\0'); nul != std::string_view::npos) faults.nul = nul;
  return faults;
}

void refuse_byte_faults(std::string_view text, std::string_view origin, const ByteFaults& faults) {
  if (const auto bad = faults.bad_utf8) {
    const Position p = position_of(text, *bad);
    throw InputError(std::string(origin) + ": byte " + std::to_string(*bad) + " (line " +
                     std::to_string(p.line) + ", column " + std::to_string(p.column) +
                     ") is not valid UTF-8; save the text as UTF-8");
  }
  if (const auto nul = faults.nul) {
    const Position p = position_of(text, *nul);
    throw InputError(std::string(origin) + ": byte " + std::to_string(*nul) + " (line " +
                     std::to_string(p.line) + ", column " + std::to_string(p.column) +
                     ") is a NUL character, which YAML and JSON do not allow; remove it");
  }
}

void check_text(std::string_view text, std::string_view origin, const Limits& limits) {
  check_size(text, origin, limits);
  refuse_byte_faults(text, origin, find_byte_faults(text));
}

}  // namespace scoria::input
