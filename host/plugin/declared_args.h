// The arguments a plugin declares (ABI 1.2: scoria_descriptor.args), and the
// check of a config's arguments against them: unknown names with a "did you
// mean", wrong types, values out of range or not among those allowed. It
// runs when a config is loaded, never in a session.
#pragma once

#include <scoria/scoria.h>

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "config/scheduler_config.h"

namespace scoria::plugin {

/// One declared argument, read out of a plugin's descriptor. The views point
/// into the plugin, valid while it is loaded.
struct ArgSpec {
  std::string_view name;  // "binpack.weight", or a family "binpack.resources.*"
  uint32_t type = 0;      // scoria_arg_type
  std::optional<std::string_view> default_value;
  std::string_view help;
  std::vector<std::string_view> allowed;  // empty: any value
  std::optional<double> min, max;

  bool family() const { return name.ends_with(".*"); }
  /// A family's prefix with its dot ("binpack.resources."); the name otherwise.
  std::string_view stem() const { return family() ? name.substr(0, name.size() - 1) : name; }
};

/// What is wrong with the arguments `d` declares (no array, a spec too
/// small, no name, an unknown type, a default of the wrong type, a name
/// declared twice), one message per problem; empty when the declaration is
/// sound or there is none. The loader refuses a plugin whose declaration is
/// not sound, so nothing later reads a broken one.
std::vector<std::string> declaration_problems(const scoria_descriptor& d);

/// The arguments `d` declares, or nullopt when it declares none: built for
/// ABI 1.0 or 1.1, or without SCORIA_FLAG_DECLARES_ARGS. Only for a
/// descriptor without declaration_problems.
std::optional<std::vector<ArgSpec>> declared_args(const scoria_descriptor& d);

/// Checks `args`, given in the config to `owner` (plugin "nodeorder" or
/// action "preempt"), against `specs`. One message per problem, each led by
/// the argument's place in `places` (or by the owner's `place`), naming the
/// argument, what is wrong, a "did you mean" for a mistyped name and the
/// form the argument takes.
std::vector<std::string> check_arguments(std::string_view owner, std::string_view plugin,
                                         std::span<const ArgSpec> specs,
                                         const config::Arguments& args,
                                         const config::ArgumentPlaces& places,
                                         std::string_view place);

/// Adds each declared default the config left out, so that the plugin's
/// getters return it.
void add_defaults(std::span<const ArgSpec> specs, config::Arguments& args);

/// "bool", "int", "float", "string", "quantity", "duration", "list", "map".
std::string_view type_name(uint32_t type);

/// What a config may write for `spec`: "a whole number of at least 0",
/// "one of most, least", "a duration such as 30s, 5m or 1h30m".
std::string accepted_form(const ArgSpec& spec);

}  // namespace scoria::plugin
