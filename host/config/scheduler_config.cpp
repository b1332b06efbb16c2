// Reads the scheduler configuration from TOML (native) or from Volcano's YAML
// (plain, or wrapped in the Kubernetes ConfigMap it is usually deployed as).
// Both syntaxes are first turned into one small document tree
// (config_tree.h), so that one reader gives them the same meaning and the
// same messages.
#include "config/scheduler_config.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <system_error>
#include <utility>

#include <toml++/toml.h>

#include "config/config_tree.h"
#include "input/yaml_tree.h"
#include "model/error.h"
#include "model/suggestion.h"

namespace scoria::config {

namespace {

using doc::Entry;
using doc::fail;
using doc::from_yaml;
using doc::Origin;
using doc::parse_toml;
using doc::Place;
using doc::Syntax;
using doc::syntax_by_content;
using doc::syntax_by_name;
using doc::syntax_word;
using doc::trim;
using doc::Value;
using doc::yaml_place;
using model::closest;

// ===========================================================================
// Enable flags
// ===========================================================================

struct FlagKey {
  std::string_view name;
  std::string_view prefix;  // the spelling of Volcano's own yaml tag
};

// Indexed by Flag.
constexpr std::array<FlagKey, kFlagCount> kFlagKeys = {{
    {"JobOrder", "enable"},           {"QueueOrder", "enable"},       {"TaskOrder", "enable"},
    {"ClusterOrder", "enabled"},      {"Predicate", "enable"},        {"BestNode", "enable"},
    {"NodeOrder", "enable"},          {"JobReady", "enable"},         {"JobPipelined", "enable"},
    {"JobEnqueued", "enable"},        {"JobStarving", "enable"},      {"Preemptable", "enable"},
    {"Reclaimable", "enable"},        {"Preemptive", "enable"},       {"Overused", "enabled"},
    {"Allocatable", "enabled"},       {"Victim", "enabled"},          {"Hierarchy", "enable"},
    {"TargetJob", "enable"},          {"ReservedNodes", "enable"},    {"HyperNodeOrder", "enabled"},
    {"SubJobReady", "enabled"},       {"SubJobPipelined", "enabled"}, {"SubJobOrder", "enabled"},
    {"HyperNodeGradient", "enabled"},
}};

/// The flag an option key sets, in either spelling ("enableX", "enabledX").
std::optional<Flag> flag_of_key(std::string_view key) {
  for (std::string_view prefix : {std::string_view("enabled"), std::string_view("enable")}) {
    if (!key.starts_with(prefix)) continue;
    const std::string_view rest = key.substr(prefix.size());
    for (size_t i = 0; i < kFlagCount; ++i)
      if (kFlagKeys[i].name == rest) return static_cast<Flag>(i);
  }
  return std::nullopt;
}

std::string volcano_key(size_t flag) {
  return std::string(kFlagKeys[flag].prefix) + std::string(kFlagKeys[flag].name);
}

// ===========================================================================
// Small text helpers
// ===========================================================================

std::string quote(std::string_view s) { return "\"" + std::string(s) + "\""; }

/// "unknown key; did you mean "tiers"?" or "unknown key." before a list of
/// the valid keys.
std::string unknown(std::string_view what, std::string_view key,
                    const std::vector<std::string>& candidates) {
  if (auto near = closest(key, candidates))
    return std::string(what) + "; did you mean \"" + *near + "\"?";
  return std::string(what) + ".";
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

/// Whether an argument's text reads as a number that is not finite: NaN or
/// an infinity in any spelling a plugin's float getter (strtod) or YAML 1.1
/// (".nan", "-.inf") accepts, or a number too large for a double ("1e999").
bool non_finite_number(std::string_view text) {
  std::string t(text);
  const size_t sign = !t.empty() && (t[0] == '+' || t[0] == '-') ? 1 : 0;
  if (t.size() > sign + 1 && t[sign] == '.' &&
      std::isalpha(static_cast<unsigned char>(t[sign + 1])))
    t.erase(sign, 1);  // YAML's ".inf" is strtod's "inf"
  if (t.empty() || std::isspace(static_cast<unsigned char>(t[0]))) return false;
  char* end = nullptr;
  const double d = std::strtod(t.c_str(), &end);
  return end == t.c_str() + t.size() && !std::isfinite(d);
}

// ===========================================================================
// Reading the settings out of the tree
// ===========================================================================

constexpr std::array<std::string_view, 10> kTopKeys = {"actions",
                                                       "tiers",
                                                       "configurations",
                                                       "metrics",
                                                       "schedule_period",
                                                       "plugin_dirs",
                                                       "min_nodes_to_find",
                                                       "min_percentage_of_nodes_to_find",
                                                       "percentage_of_nodes_to_find",
                                                       "equivalence_cache"};

class Reader {
 public:
  Reader(const Origin& origin, Syntax syntax) : origin_(origin), syntax_(syntax) {}

  SchedulerConfig read(const Value& root) const {
    if (root.kind != Value::Kind::Map && root.kind != Value::Kind::Null) {
      std::string what = "is " + describe(root) + "; a config is " + std::string(map_word()) +
                         " of settings (actions, tiers, ...)";
      if (syntax_ != Syntax::Toml && root.kind == Value::Kind::String &&
          root.text.find('=') != std::string::npos)
        what += "; if this file is TOML, give it the .toml extension";
      fail(origin_, root.place, "", what);
    }
    SchedulerConfig out;
    bool has_actions = false;
    for (const Entry& e : root.entries) {
      const std::string& key = e.key;
      const Value& v = e.value;
      if (key == "actions") {
        read_actions(v, out);
        has_actions = true;
      } else if (key == "tiers") {
        read_tiers(v, out);
      } else if (key == "configurations") {
        read_configurations(v, out);
      } else if (key == "metrics") {
        // Volcano's metrics settings; Scoria's metrics are configured elsewhere.
      } else if (key == "schedule_period") {
        out.schedule_period_ms = read_period(v, key);
      } else if (key == "plugin_dirs") {
        read_plugin_dirs(v, out);
      } else if (key == "min_nodes_to_find") {
        out.min_nodes_to_find = read_int(v, key, 0, 1'000'000'000);
      } else if (key == "min_percentage_of_nodes_to_find") {
        out.min_percentage_of_nodes_to_find = read_int(v, key, 0, 100);
      } else if (key == "percentage_of_nodes_to_find") {
        out.percentage_of_nodes_to_find = read_int(v, key, 0, 100);
      } else if (key == "equivalence_cache") {
        if (v.kind != Kind::Bool)
          fail_at(v, key, "is " + describe(v) + ", not a boolean; write true or false");
        out.equivalence_cache = v.truth;
      } else {
        const std::vector<std::string> known(kTopKeys.begin(), kTopKeys.end());
        fail(origin_, e.place, key,
             unknown("unknown setting", key, known) + " The settings are " + join(known));
      }
    }
    if (!has_actions)
      fail(origin_, root.place, "actions",
           "missing; name the actions to run, in order, e.g. " + example_actions());
    return out;
  }

 private:
  using Kind = Value::Kind;

  std::string_view map_word() const { return syntax_ == Syntax::Toml ? "a table" : "a mapping"; }

  std::string describe(const Value& v) const {
    switch (v.kind) {
      case Kind::Null:
        return "empty";
      case Kind::String:
        return "the text " + quote(v.text);
      case Kind::Bool:
        return "the boolean " + v.text;
      case Kind::Integer:
      case Kind::Float:
        return "the number " + v.text;
      case Kind::Other:
        return "the value " + v.text;
      case Kind::List:
        return "a list";
      case Kind::Map:
        return std::string(map_word());
    }
    return "a value";
  }

  /// `key = value` or `key: value`, as a fix in the file's own syntax.
  std::string setting(std::string_view key, std::string_view toml_value,
                      std::string_view yaml_value) const {
    if (syntax_ == Syntax::Toml) return std::string(key) + " = " + std::string(toml_value);
    if (syntax_ == Syntax::Json) return quote(key) + ": " + std::string(yaml_value);
    return std::string(key) + ": " + std::string(yaml_value);
  }

  std::string example_actions() const {
    return setting("actions", R"(["enqueue", "allocate"])", R"("enqueue, allocate")");
  }

  [[noreturn]] void fail_at(const Value& v, std::string_view path, std::string_view what) const {
    fail(origin_, v.place, path, what);
  }

  /// Calls `each` for a list's items; an empty value is an empty list.
  template <typename F>
  void for_each_item(const Value& v, const std::string& path, std::string_view of, F each) const {
    if (v.kind == Kind::Null) return;
    if (v.kind != Kind::List)
      fail_at(v, path, "is " + describe(v) + "; it must be a list of " + std::string(of));
    for (size_t i = 0; i < v.items.size(); ++i)
      each(v.items[i], path + "[" + std::to_string(i) + "]");
  }

  void require_map(const Value& v, const std::string& path, std::string_view fix) const {
    if (v.kind != Kind::Map)
      fail_at(
          v, path,
          "is " + describe(v) + "; it must be " + std::string(map_word()) + " " + std::string(fix));
  }

  [[noreturn]] void unknown_key(const Entry& e, const std::string& path,
                                std::vector<std::string> known) const {
    fail(origin_, e.place, path + "." + e.key,
         unknown("unknown key", e.key, known) + " The keys here are " + join(known));
  }

  // --- actions ---------------------------------------------------------------

  void read_actions(const Value& v, SchedulerConfig& out) const {
    struct Named {
      std::string name;
      std::string path;
      Place place;
    };
    std::vector<Named> names;
    const bool listed = v.kind == Kind::List;
    if (v.kind == Kind::String) {
      // Volcano's form: one comma-separated string.
      std::string_view rest = v.text;
      for (;;) {
        const size_t comma = rest.find(',');
        names.push_back({std::string(trim(rest.substr(0, comma))), "actions", v.place});
        if (comma == std::string_view::npos) break;
        rest.remove_prefix(comma + 1);
      }
      if (names.size() == 1 && names[0].name.empty()) names.clear();
    } else if (listed) {
      for (size_t i = 0; i < v.items.size(); ++i) {
        const Value& item = v.items[i];
        const std::string path = "actions[" + std::to_string(i) + "]";
        if (item.kind != Kind::String)
          fail_at(item, path, "is " + describe(item) + "; an action is named by a string");
        names.push_back({std::string(trim(item.text)), path, item.place});
      }
    } else if (v.kind != Kind::Null) {
      fail_at(
          v, "actions",
          "is " + describe(v) + "; name the actions to run, in order, e.g. " + example_actions());
    }
    if (names.empty())
      fail_at(v, "actions",
              "lists no action; name the actions to run, in order, e.g. " + example_actions());
    for (size_t i = 0; i < names.size(); ++i) {
      const Named& a = names[i];
      if (a.name.empty())
        fail(origin_, a.place, a.path,
             listed ? "is an empty name; remove it or name an action"
                    : "action " + std::to_string(i + 1) +
                          " is empty; remove the extra comma or name an action there");
      for (size_t j = 0; j < i; ++j)
        if (names[j].name == a.name)
          fail(origin_, a.place, a.path,
               quote(a.name) + " is listed twice" +
                   (listed ? " (first at " + names[j].path + ")" : std::string()) +
                   "; an action runs once per session, remove one");
      out.actions.push_back(a.name);
      out.action_places.push_back(origin_.where(a.place) + ": " + a.path);
    }
  }

  // --- tiers and plugins -----------------------------------------------------

  void read_tiers(const Value& v, SchedulerConfig& out) const {
    std::map<std::string, std::string, std::less<>> seen;  // plugin name -> its path
    for_each_item(
        v, "tiers", "tiers, each with its plugins", [&](const Value& t, const std::string& path) {
          Tier tier;
          if (t.kind != Kind::Null) {
            require_map(t, path, "with a list of plugins");
            for (const Entry& e : t.entries) {
              if (e.key != "plugins") unknown_key(e, path, {"plugins"});
              for_each_item(e.value, path + ".plugins", "plugins",
                            [&](const Value& p, const std::string& ppath) {
                              PluginOption option = read_plugin(p, ppath);
                              auto [it, fresh] = seen.emplace(option.name, ppath);
                              if (!fresh)
                                fail_at(p, ppath,
                                        "plugin " + quote(option.name) + " is already at " +
                                            it->second +
                                            "; a plugin takes one place in the tiers, remove one");
                              tier.plugins.push_back(std::move(option));
                            });
            }
          }
          out.tiers.push_back(std::move(tier));
        });
  }

  static std::vector<std::string> plugin_keys() {
    std::vector<std::string> keys = {"name", "arguments"};
    for (size_t f = 0; f < kFlagCount; ++f) keys.push_back(volcano_key(f));
    return keys;
  }

  PluginOption read_plugin(const Value& v, const std::string& path) const {
    const std::string example = syntax_ == Syntax::Toml ? R"({ name = "gang" })" : "name: gang";
    if (v.kind == Kind::String)
      fail_at(v, path,
              "is " + describe(v) + "; a plugin is " + std::string(map_word()) +
                  " with its name, e.g. " + setting("name", quote(v.text), v.text));
    if (v.kind != Kind::Null) require_map(v, path, "with the plugin's name, flags and arguments");
    PluginOption option;
    std::array<std::string, kFlagCount> flag_keys;  // the key that set each flag
    bool named = false;
    const Value* arguments = nullptr;  // read once the name is known, for messages
    for (const Entry& e : v.entries) {
      const std::string epath = path + "." + e.key;
      if (e.key == "name") {
        if (e.value.kind != Kind::String || e.value.text.empty())
          fail_at(e.value, epath,
                  "is " + describe(e.value) + "; give the plugin's name, e.g. " + example);
        option.name = e.value.text;
        named = true;
      } else if (e.key == "arguments") {
        arguments = &e.value;
      } else if (auto flag = flag_of_key(e.key)) {
        const auto f = static_cast<size_t>(*flag);
        if (e.value.kind != Kind::Bool)
          fail_at(e.value, epath,
                  "is " + describe(e.value) + ", not a boolean; write " +
                      setting(e.key, "true", "true") + " or false");
        if (!flag_keys[f].empty())
          fail(origin_, e.place, epath,
               "sets " + std::string(kFlagKeys[f].name) + " again (already set by " + flag_keys[f] +
                   "); keep one of the two spellings");
        flag_keys[f] = e.key;
        option.flags[f] = e.value.truth;
      } else {
        std::vector<std::string> known = plugin_keys();
        // Both spellings are valid, so the closer one is the better hint.
        for (size_t f = 0; f < kFlagCount; ++f)
          known.push_back(std::string(kFlagKeys[f].prefix == "enable" ? "enabled" : "enable") +
                          std::string(kFlagKeys[f].name));
        std::string what = "unknown plugin option";
        if (auto near = closest(e.key, known)) {
          what += "; did you mean " + quote(*near) + "?";
        } else {
          what +=
              "; a plugin takes name, arguments and the flags enable<Flag> (or enabled<Flag>) "
              "for <Flag> in ";
          for (size_t f = 0; f < kFlagCount; ++f)
            what += std::string(f ? ", " : "") + std::string(kFlagKeys[f].name);
          what += ". A setting of the plugin itself goes under arguments";
        }
        fail(origin_, e.place, epath, what);
      }
    }
    if (!named) fail_at(v, path, "has no name; add " + setting("name", "\"<plugin>\"", "<plugin>"));
    option.place = origin_.where(v.place) + ": " + path;
    if (arguments)
      option.arguments = read_arguments(*arguments, path + ".arguments",
                                        "plugin " + quote(option.name), option.argument_places);
    return option;
  }

  // --- arguments ---------------------------------------------------------------

  /// `owner` names the plugin or action the arguments are for ("plugin
  /// \"binpack\"").
  Arguments read_arguments(const Value& v, const std::string& path, std::string_view owner,
                           ArgumentPlaces& places) const {
    Arguments out;
    if (v.kind == Kind::Null) return out;
    require_map(v, path, "of argument names and values");
    flatten(v, "", path, owner, out, places);
    return out;
  }

  /// Nested mappings become dotted keys ({a: {b: 1}} is "a.b" = "1") and
  /// list items take their index ("a.0"), so every argument is one flat key.
  /// A NaN or an infinity is refused here, for every plugin alike: no
  /// weight, threshold or ratio means anything as one, and a plugin handed
  /// one would skew every score it touches.
  void flatten(const Value& v, const std::string& key, const std::string& path,
               std::string_view owner, Arguments& out, ArgumentPlaces& places) const {
    if (v.kind == Kind::Map) {
      for (const Entry& e : v.entries)
        flatten(e.value, key.empty() ? e.key : key + "." + e.key, path, owner, out, places);
      return;
    }
    if (v.kind == Kind::List) {
      for (size_t i = 0; i < v.items.size(); ++i)
        flatten(v.items[i], key + "." + std::to_string(i), path, owner, out, places);
      return;
    }
    if ((v.kind == Kind::Float || v.kind == Kind::String) && non_finite_number(v.text))
      fail_at(v, path + "[" + key + "]",
              "is " + quote(v.text) + ", not a finite number; argument " + quote(key) + " of " +
                  std::string(owner) +
                  " must be a finite number: write one (e.g. 1), or remove the argument to "
                  "use its default");
    if (!out.emplace(key, v.text).second)
      fail_at(v, path + "[" + key + "]",
              "is given twice (once as a dotted key, once nested); keep one");
    places.emplace(key, origin_.where(v.place) + ": " + path + "[" + key + "]");
  }

  // --- configurations ----------------------------------------------------------

  void read_configurations(const Value& v, SchedulerConfig& out) const {
    std::map<std::string, std::string, std::less<>> seen;
    for_each_item(v, "configurations", "action configurations (name and arguments)",
                  [&](const Value& c, const std::string& path) {
                    require_map(c, path, "with the action's name and its arguments");
                    std::optional<std::string> name;
                    const Value* args_value = nullptr;  // read once the name is known
                    for (const Entry& e : c.entries) {
                      if (e.key == "name") {
                        if (e.value.kind != Kind::String || e.value.text.empty())
                          fail_at(e.value, path + ".name",
                                  "is " + describe(e.value) + "; name the action, e.g. " +
                                      setting("name", "\"allocate\"", "allocate"));
                        name = e.value.text;
                      } else if (e.key == "arguments") {
                        args_value = &e.value;
                      } else {
                        unknown_key(e, path, {"name", "arguments"});
                      }
                    }
                    if (!name)
                      fail_at(c, path,
                              "has no name; add the action it configures, e.g. " +
                                  setting("name", "\"allocate\"", "allocate"));
                    Arguments args;
                    ArgumentPlaces places;
                    if (args_value)
                      args = read_arguments(*args_value, path + ".arguments",
                                            "action " + quote(*name), places);
                    auto [it, fresh] = seen.emplace(*name, path);
                    if (!fresh)
                      fail_at(c, path,
                              "configures " + quote(*name) + " again (already at " + it->second +
                                  "); merge their arguments into one");
                    out.action_arguments.emplace(*name, std::move(args));
                    out.action_argument_places.emplace(*name, std::move(places));
                  });
  }

  // --- scalar settings ---------------------------------------------------------

  int64_t read_period(const Value& v, const std::string& path) const {
    const std::string fix = "; write a duration such as " +
                            setting("schedule_period", "\"500ms\"", "500ms") +
                            " (or \"2s\", \"1m\"), or whole milliseconds as a number";
    if (v.kind == Kind::Integer) {
      const int64_t ms = parse_integer(v, path);
      if (ms <= 0) fail_at(v, path, "is " + v.text + " ms; the period must be positive" + fix);
      return ms;
    }
    if (v.kind != Kind::String) fail_at(v, path, "is " + describe(v) + fix);
    const std::optional<double> ms = duration_ms(trim(v.text));
    if (!ms) fail_at(v, path, "is " + describe(v) + ", not a duration" + fix);
    if (*ms < 1 || *ms > 1e12)
      fail_at(v, path, "is " + describe(v) + "; the period must be between 1ms and years" + fix);
    return std::llround(*ms);
  }

  /// A Go-style duration ("1m30s", "1.5s", "500ms") in milliseconds.
  static std::optional<double> duration_ms(std::string_view s) {
    static constexpr std::array<std::pair<std::string_view, double>, 8> kUnits = {{
        {"ns", 1e-6},
        {"us", 1e-3},
        {"\xC2\xB5s", 1e-3},
        {"\xCE\xBCs", 1e-3},  // µs, μs
        {"ms", 1.0},
        {"s", 1e3},
        {"m", 60e3},
        {"h", 3600e3},
    }};
    if (s.empty()) return std::nullopt;
    double total = 0;
    while (!s.empty()) {
      size_t n = 0;
      while (n < s.size() && ((s[n] >= '0' && s[n] <= '9') || s[n] == '.')) ++n;
      double number = 0;
      const auto [ptr, ec] = std::from_chars(s.data(), s.data() + n, number);
      if (n == 0 || ec != std::errc() || ptr != s.data() + n) return std::nullopt;
      s.remove_prefix(n);
      bool matched = false;
      for (const auto& [unit, scale] : kUnits) {
        // "ms" before "m" and "s": the table lists longer units first where they share a letter.
        if (s.starts_with(unit)) {
          total += number * scale;
          s.remove_prefix(unit.size());
          matched = true;
          break;
        }
      }
      if (!matched) return std::nullopt;
    }
    return total;
  }

  int64_t parse_integer(const Value& v, const std::string& path) const {
    std::string_view s = v.text;
    if (s.starts_with('+')) s.remove_prefix(1);
    int64_t x = 0;
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), x);
    if (ec != std::errc() || ptr != s.data() + s.size())
      fail_at(v, path, "is " + describe(v) + ", too large; write a smaller whole number");
    return x;
  }

  int32_t read_int(const Value& v, const std::string& path, int32_t min, int32_t max) const {
    if (v.kind != Kind::Integer) fail_at(v, path, "is " + describe(v) + "; write a whole number");
    const int64_t x = parse_integer(v, path);
    if (x < min || x > max)
      fail_at(v, path,
              "is " + v.text + "; it must be between " + std::to_string(min) + " and " +
                  std::to_string(max));
    return static_cast<int32_t>(x);
  }

  void read_plugin_dirs(const Value& v, SchedulerConfig& out) const {
    auto add = [&](const Value& d, const std::string& path) {
      if (d.kind != Kind::String || trim(d.text).empty())
        fail_at(d, path, "is " + describe(d) + "; name a directory holding plugin .so files");
      out.plugin_dirs.emplace_back(d.text);
    };
    if (v.kind == Kind::String)
      add(v, "plugin_dirs");
    else
      for_each_item(v, "plugin_dirs", "directories", add);
  }

  const Origin& origin_;
  Syntax syntax_;
};

// ===========================================================================
// Documents and the ConfigMap wrapper
// ===========================================================================

SchedulerConfig parse_document(std::string_view text, const Origin& origin, Syntax syntax,
                               bool may_be_configmap);

bool is_configmap_field(std::string_view key) {
  return key == "apiVersion" || key == "kind" || key == "metadata" || key == "immutable" ||
         key == "data";
}

/// Reads the config a ConfigMap carries in its single `data` key. The
/// inner text keeps the file's line numbers when it is a literal block
/// (`key: |`), as `kubectl get configmap -o yaml` writes it.
SchedulerConfig parse_configmap(const input::YamlNode& root, std::string_view text,
                                const Origin& origin) {
  using Kind = input::YamlNode::Kind;
  const input::YamlEntry* data = nullptr;
  for (const input::YamlEntry& e : root.entries) {
    const std::string key = e.key.kind == Kind::Scalar ? e.key.text : std::string();
    const Place kp = yaml_place(e.key);
    if (!is_configmap_field(key))
      fail(origin, kp, key,
           "unknown key beside data; a ConfigMap carries the scheduler config as text under "
           "data, so move it there");
    if (key == "kind" && !(e.value.kind == Kind::Scalar && e.value.text == "ConfigMap"))
      fail(origin, kp, key,
           "is not ConfigMap; Scoria reads a scheduler config, or a ConfigMap holding one in "
           "data");
    if (key == "data") data = &e;
  }
  const input::YamlNode& map = data->value;
  if (map.kind != Kind::Map || map.entries.size() != 1) {
    std::vector<std::string> keys;
    for (const input::YamlEntry& e : map.entries) keys.push_back(e.key.text);
    fail(origin, yaml_place(data->key), "data",
         !keys.empty()
             ? "holds " + std::to_string(keys.size()) + " keys (" + join(keys) +
                   "); a scheduler ConfigMap holds one, e.g. volcano-scheduler.conf: keep that one"
             : "holds no config; put the config text under one key, e.g. "
               "volcano-scheduler.conf: |");
  }
  const std::string& key = map.entries.front().key.text;
  const input::YamlNode& value = map.entries.front().value;
  const std::string path = "data[" + key + "]";
  if (value.kind != Kind::Scalar)
    fail(origin, yaml_place(value), path,
         "is a list or mapping; it must be the config as text, e.g. " + key + ": |");

  Origin inner{origin.file, path, false, 0, 0};
  if (value.style == input::YamlNode::Style::Literal && value.offset < text.size()) {
    // The text starts on the line after the indicator (where libfyaml
    // places the scalar; some versions place it on the indicator), indented
    // by the indentation of its first line that has content.
    size_t line = value.offset;
    int first_line = value.line;  // 1-based, of the text's first line
    if (text[line] == '|') {
      line = std::min(text.find('\n', line), text.size()) + 1;
      ++first_line;
    } else {
      line -= std::min<size_t>(line, static_cast<size_t>(std::max(value.column - 1, 0)));
    }
    while (line < text.size()) {
      const size_t end = std::min(text.find('\n', line), text.size());
      const std::string_view content = text.substr(line, end - line);
      if (!trim(content).empty()) {
        inner.column_offset = static_cast<int>(content.find_first_not_of(' '));
        break;
      }
      line = end + 1;
    }
    inner.mapped = true;
    inner.line_offset = first_line - 1 + origin.line_offset;
  }
  const Syntax syntax = syntax_by_name(key).value_or(syntax_by_content(value.text));
  return parse_document(value.text, inner, syntax, false);
}

SchedulerConfig parse_document(std::string_view text, const Origin& origin, Syntax syntax,
                               bool may_be_configmap) {
  if (syntax == Syntax::Toml) return Reader(origin, syntax).read(parse_toml(text, origin));

  // libfyaml reads it under the config limits, so that any text is read or
  // refused in time proportional to its size (yaml-cpp, used before, loops
  // forever on some invalid input), into nodes that keep the places and the
  // styles this reader's messages (and YAML 1.1's booleans) need.
  std::vector<input::YamlNode> docs;
  try {
    docs = input::read_yaml_trees(
        text, origin.inner.empty() ? origin.file : origin.file + " " + origin.inner,
        input::kConfigLimits);
  } catch (const input::SyntaxError& e) {
    // In this reader's words; a fault found at the end of text that ends
    // without a newline is placed on its last line.
    const int lines = static_cast<int>(std::count(text.begin(), text.end(), '\n')) +
                      (text.empty() || text.back() == '\n' ? 0 : 1);
    fail(origin,
         Place{std::min(std::max(e.line(), 1), std::max(lines, 1)), std::max(e.column(), 1)}, "",
         "invalid " + std::string(syntax_word(syntax)) + " (" + e.detail() +
             "); check the indentation, the quoting and the ':' after each key there");
  }
  if (docs.size() > 1)
    fail(origin, yaml_place(docs[1]), "",
         "a second " + std::string(syntax_word(syntax)) +
             " document starts here; the file must hold one config (or one ConfigMap), remove "
             "the others");
  if (docs.empty()) return Reader(origin, syntax).read(Value{});
  const input::YamlNode& root = docs.front();
  if (may_be_configmap && root.kind == input::YamlNode::Kind::Map &&
      std::any_of(root.entries.begin(), root.entries.end(),
                  [](const input::YamlEntry& e) { return e.key.text == "data"; }))
    return parse_configmap(root, text, origin);
  return Reader(origin, syntax).read(from_yaml(root, Place{1, 1}, origin, 0));
}

}  // namespace

std::string_view flag_name(Flag f) {
  const auto i = static_cast<size_t>(f);
  return i < kFlagCount ? kFlagKeys[i].name : std::string_view();
}

SchedulerConfig parse_config(std::string_view text, const std::string& file_name) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);  // a UTF-8 byte order mark
  const Syntax syntax = syntax_by_name(file_name).value_or(syntax_by_content(text));
  return parse_document(text, Origin{file_name, "", true, 0, 0}, syntax, true);
}

SchedulerConfig load_config(const std::filesystem::path& file) {
  const std::string name = file.string();
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec))
    throw InputError(name + ": is a directory; name the scheduler config file in it");
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError(name + ": cannot open it; check that the file exists and is readable");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw InputError(name + ": reading it failed; check the file");
  SchedulerConfig config = parse_config(text.str(), name);
  // Relative plugin directories belong to the config, not to wherever the
  // scheduler happens to be started from.
  for (auto& dir : config.plugin_dirs)
    if (dir.is_relative()) dir = file.parent_path() / dir;
  return config;
}

}  // namespace scoria::config
