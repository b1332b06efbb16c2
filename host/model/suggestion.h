// "Did you mean ...?": the known name nearest to a mistyped one.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace scoria::model {

/// The candidate closest to `key` (case-insensitive edit distance), when it
/// is close enough to be a typo or an abbreviation ("args" of "arguments");
/// nullopt when none is.
std::optional<std::string> closest(std::string_view key,
                                   const std::vector<std::string>& candidates);

}  // namespace scoria::model
