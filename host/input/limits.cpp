#include "input/limits.h"

#include <string>

#include "input/utf8.h"
#include "model/error.h"

namespace scoria::input {

void check_text(std::string_view text, std::string_view origin, const Limits& limits) {
  if (text.size() > limits.max_bytes) {
    throw InputError(std::string(origin) + ": " + std::to_string(text.size()) +
                     " bytes is more than the limit of " + std::to_string(limits.max_bytes) +
                     "; split the input");
  }
  if (const auto bad = invalid_utf8_at(text)) {
    const Position p = position_of(text, *bad);
    throw InputError(std::string(origin) + ": byte " + std::to_string(*bad) + " (line " +
                     std::to_string(p.line) + ", column " + std::to_string(p.column) +
                     ") is not valid UTF-8; save the text as UTF-8");
  }
  if (const size_t nul = text.find('\0'); nul != std::string_view::npos) {
    const Position p = position_of(text, nul);
    throw InputError(std::string(origin) + ": byte " + std::to_string(nul) + " (line " +
                     std::to_string(p.line) + ", column " + std::to_string(p.column) +
                     ") is a NUL character, which YAML and JSON do not allow; remove it");
  }
}

}  // namespace scoria::input
