// Log lines in klog's spirit: a verbosity threshold (-v) and one line per
// event on standard error, tagged with who wrote it.
#pragma once

#include <string_view>

namespace scoria::log {

/// Levels: -2 error, -1 warning, 0 info, 1..5 more detail (klog's V(n)).
enum Level : int { kError = -2, kWarning = -1, kInfo = 0 };

/// Sets the threshold (lines above it are dropped); set once at start-up.
void set_verbosity(int level);
bool enabled(int level);

/// Writes one line: "<level letter> <who>: <message>".
void write(int level, std::string_view who, std::string_view message);

}  // namespace scoria::log
