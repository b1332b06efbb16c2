// How an argument's text reads as a value: the one reading both the host's
// getters (scoria_host_api.args_get_*) and the check of declared arguments
// use, so that what the check lets through is what the plugin reads.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace scoria::plugin {

/// true/True/TRUE or false/False/FALSE.
std::optional<bool> bool_of(std::string_view text);
/// A whole number in int64 range, nothing else around it.
std::optional<int64_t> int_of(std::string_view text);
/// A finite number, whole or not, nothing else around it.
std::optional<double> float_of(std::string_view text);

}  // namespace scoria::plugin
