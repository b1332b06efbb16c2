// UTF-8 validation, so that every byte that reaches a message, the store
// or JSON output is valid text.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace scoria::input {

/// The offset of the first byte of `text` that does not begin a well-formed
/// UTF-8 sequence (overlong forms, surrogates and code points past U+10FFFF
/// are ill-formed), or nullopt when all of it is valid.
std::optional<size_t> invalid_utf8_at(std::string_view text);

/// 1-based line and column of byte `offset` in `text`.
struct Position {
  size_t line = 1;
  size_t column = 1;
};
Position position_of(std::string_view text, size_t offset);

}  // namespace scoria::input
