// Log lines in klog's spirit: a verbosity threshold (-v) and one line per
// event on standard error, tagged with who wrote it.
#pragma once

#include <cstddef>
#include <string_view>

namespace scoria::log {

/// Levels: -2 error, -1 warning, 0 info, 1..5 more detail (klog's V(n)).
enum Level : int { kError = -2, kWarning = -1, kInfo = 0 };

/// Sets the threshold (lines above it are dropped); set once at start-up.
void set_verbosity(int level);
bool enabled(int level);

/// A message longer than this is cut (at a character boundary) and ends
/// "... (N more bytes)": a client-sent 100 KB name must not fill the log.
inline constexpr size_t kMaxMessage = 16384;
/// What write() prints of `message`; *left_out: the bytes cut.
std::string_view clipped(std::string_view message, size_t* left_out);

/// Writes one line: "<level letter> <who>: <message>" (clipped).
void write(int level, std::string_view who, std::string_view message);

}  // namespace scoria::log
