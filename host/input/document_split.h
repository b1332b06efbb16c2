// Cutting a multi-document YAML text into runs of documents that can be
// parsed apart, on every core.
#pragma once

#include <string_view>
#include <vector>

#include "input/limits.h"
#include "input/tree_builder.h"

namespace scoria::input {

/// Cuts `text` at its document markers ("---" and "..." at the start of a
/// line, which YAML forbids inside any content) into chunks of about 64 KB
/// of whole documents, numbered as YAML numbers them: every "---" opens
/// one, and text before the first marker (or after "...") is one only if
/// it holds more than comments. Directives (%YAML) make the boundaries
/// subtle: such a text stays one chunk. On the way it refuses the bytes
/// check_text refuses, as check_text words it (the caller checks the
/// size). `skip` bytes at the start (a byte order mark) are checked but
/// belong to no document.
std::vector<Chunk> split_documents(std::string_view text, std::string_view origin, size_t skip);

}  // namespace scoria::input
