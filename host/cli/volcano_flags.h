// Volcano's vc-scheduler flags, so that a Deployment moves over with its
// command line as it is: each flag Volcano has is an alias of Scoria's, or
// accepted where it changes nothing here (said once in the log), or refused
// with what to use instead. Never silently ignored.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace scoria::cli {

struct VolcanoFlag {
  enum class Is {
    Alias,     // the same as Scoria's flag `means`
    Accepted,  // takes effect without doing anything here; `note` says why
    Refused,   // `note` says what to use instead
  };
  Is is;
  std::string_view means;  // Alias: Scoria's flag
  std::string_view note;
  bool takes_value;            // else a boolean (--flag, or --flag=true|false)
  bool false_refused = false;  // Accepted as true; =false would change what Scoria does
};

/// What Scoria makes of Volcano's flag `name` ("--scheduler-conf"), or
/// nullopt if Volcano has no such flag either (or Scoria's own flag is the
/// same name).
std::optional<VolcanoFlag> volcano_flag(std::string_view name);

}  // namespace scoria::cli
