#include "plugin/declared_args.h"

#include <charconv>
#include <cstddef>
#include <set>
#include <stdexcept>

#include "model/go_duration.h"
#include "model/quantity.h"
#include "model/suggestion.h"
#include "plugin/argument_text.h"

namespace scoria::plugin {

namespace {

// The 1.2 spec: every field up to `max`. A later minor may append; the host
// steps by the plugin's struct_size and reads no further than this.
constexpr size_t kSpecSize = offsetof(scoria_arg_spec, max) + sizeof(double);
constexpr size_t kDescriptorWithArgs =
    offsetof(scoria_descriptor, arg_count) + sizeof(scoria_descriptor::arg_count);
// Far more than any plugin takes; a count past it is a corrupt descriptor.
constexpr size_t kMaxArgs = 4096;

std::string quote(std::string_view s) { return "\"" + std::string(s) + "\""; }

std::string number(double x) {
  char buf[32];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, x);
  return ec == std::errc() ? std::string(buf, end) : std::string("?");
}

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

bool all_digits(std::string_view s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
}

bool declares(const scoria_descriptor& d) {
  return d.struct_size >= kDescriptorWithArgs && (d.flags & SCORIA_FLAG_DECLARES_ARGS) != 0;
}

const scoria_arg_spec& spec_at(const scoria_descriptor& d, size_t i) {
  const auto* base = reinterpret_cast<const unsigned char*>(d.args);
  return *reinterpret_cast<const scoria_arg_spec*>(base + i * d.args[0].struct_size);
}

/// How `key` relates to `spec`: not at all, as the argument itself, as one
/// item of a list (NAME.N), or below it (a map's keys, a list item's fields).
enum class Match { None, Whole, Item, Below };

Match match(const ArgSpec& spec, std::string_view key) {
  if (spec.family())
    return key.starts_with(spec.stem()) && key.size() > spec.stem().size() ? Match::Whole
                                                                           : Match::None;
  if (key == spec.name) return spec.type == SCORIA_ARG_MAP ? Match::None : Match::Whole;
  if (key.size() <= spec.name.size() + 1 || !key.starts_with(spec.name) ||
      key[spec.name.size()] != '.')
    return Match::None;
  const std::string_view rest = key.substr(spec.name.size() + 1);
  if (spec.type == SCORIA_ARG_MAP) return Match::Below;
  if (spec.type != SCORIA_ARG_LIST) return Match::None;
  const std::string_view index = rest.substr(0, rest.find('.'));
  if (!all_digits(index)) return Match::None;
  return index.size() == rest.size() ? Match::Item : Match::Below;
}

bool allowed(const ArgSpec& spec, std::string_view value) {
  if (spec.allowed.empty()) return true;
  for (std::string_view a : spec.allowed)
    if (a == value) return true;
  return false;
}

std::string range(const ArgSpec& spec, std::string_view unit) {
  const std::string u(unit);
  if (spec.min && spec.max)
    return " from " + number(*spec.min) + u + " to " + number(*spec.max) + u;
  if (spec.min) return " of at least " + number(*spec.min) + u;
  if (spec.max) return " of at most " + number(*spec.max) + u;
  return "";
}

std::string bounds_problem(const ArgSpec& spec, double x, std::string_view unit) {
  const std::string u(unit);
  if (spec.min && x < *spec.min) return "below its minimum " + number(*spec.min) + u;
  if (spec.max && x > *spec.max) return "above its maximum " + number(*spec.max) + u;
  return "";
}

/// What is wrong with `value` as the whole of argument `spec` (or as one
/// item of a list); empty when nothing is.
std::string value_problem(const ArgSpec& spec, std::string_view value, bool item) {
  if (item) return allowed(spec, value) ? "" : "not one of the values it takes";
  switch (spec.type) {
    case SCORIA_ARG_BOOL:
      return bool_of(value) ? "" : "not true or false";
    case SCORIA_ARG_INT: {
      const auto x = int_of(value);
      return x ? bounds_problem(spec, static_cast<double>(*x), "") : "not a whole number";
    }
    case SCORIA_ARG_FLOAT: {
      const auto x = float_of(value);
      return x ? bounds_problem(spec, *x, "") : "not a number";
    }
    case SCORIA_ARG_STRING:
      return allowed(spec, value) ? "" : "not one of the values it takes";
    case SCORIA_ARG_QUANTITY:
      try {
        return bounds_problem(spec, model::parse_quantity(value), "");
      } catch (const std::invalid_argument&) {
        return "not a quantity";
      }
    case SCORIA_ARG_DURATION: {
      const auto d = model::parse_go_duration(value);
      if (!d) return "not a duration";
      return bounds_problem(spec, std::chrono::duration<double>(*d).count(), "s");
    }
    case SCORIA_ARG_LIST: {
      size_t pos = 0;
      while (pos <= value.size()) {
        size_t comma = value.find(',', pos);
        if (comma == std::string_view::npos) comma = value.size();
        const std::string_view part = trim(value.substr(pos, comma - pos));
        if (!part.empty() && !allowed(spec, part))
          return "whose item " + quote(part) + " is not one of the values it takes";
        pos = comma + 1;
      }
      return "";
    }
    default:
      return "";
  }
}

// Whether `key` is one of Volcano's plugin options (enableHierarchy,
// enabledJobOrder, ...), which a config writes beside the name.
bool option_flag(std::string_view key) {
  for (size_t f = 0; f < config::kFlagCount; ++f) {
    const std::string name(config::flag_name(static_cast<config::Flag>(f)));
    if (key == "enable" + name || key == "enabled" + name) return true;
  }
  return false;
}

std::string place_of(const config::ArgumentPlaces& places, std::string_view place,
                     std::string_view key) {
  if (const auto it = places.find(key); it != places.end()) return it->second;
  return std::string(place) + ".arguments[" + std::string(key) + "]";
}

}  // namespace

std::string_view type_name(uint32_t type) {
  switch (type) {
    case SCORIA_ARG_BOOL:
      return "bool";
    case SCORIA_ARG_INT:
      return "int";
    case SCORIA_ARG_FLOAT:
      return "float";
    case SCORIA_ARG_STRING:
      return "string";
    case SCORIA_ARG_QUANTITY:
      return "quantity";
    case SCORIA_ARG_DURATION:
      return "duration";
    case SCORIA_ARG_LIST:
      return "list";
    case SCORIA_ARG_MAP:
      return "map";
    default:
      return "unknown";
  }
}

std::string accepted_form(const ArgSpec& spec) {
  std::string values;
  for (std::string_view a : spec.allowed) values += (values.empty() ? "" : ", ") + std::string(a);
  switch (spec.type) {
    case SCORIA_ARG_BOOL:
      return "true or false";
    case SCORIA_ARG_INT:
      return "a whole number" + range(spec, "");
    case SCORIA_ARG_FLOAT:
      return "a number" + range(spec, "");
    case SCORIA_ARG_STRING:
      return values.empty() ? "text" : "one of " + values;
    case SCORIA_ARG_QUANTITY:
      return "a quantity such as 500m, 2 or 1.5Gi" + range(spec, "");
    case SCORIA_ARG_DURATION:
      return "a duration such as 30s, 5m or 1h30m" + range(spec, "s");
    case SCORIA_ARG_LIST:
      return (values.empty() ? "a list" : "a list of " + values) +
             " (or its items in one text, separated by commas)";
    case SCORIA_ARG_MAP:
      return "a map of keys to values";
    default:
      return "nothing (its type is unknown)";
  }
}

std::vector<std::string> declaration_problems(const scoria_descriptor& d) {
  std::vector<std::string> out;
  if (!declares(d)) return out;
  if (d.arg_count == 0) return out;
  if (d.args == nullptr)
    return {"declares " + std::to_string(d.arg_count) + " arguments but no array"};
  if (d.arg_count > kMaxArgs)
    return {"declares " + std::to_string(d.arg_count) + " arguments, more than the " +
            std::to_string(kMaxArgs) + " a plugin may"};
  if (d.args[0].struct_size < kSpecSize)
    return {"argument specs of " + std::to_string(d.args[0].struct_size) +
            " bytes, ABI 1.2 needs " + std::to_string(kSpecSize)};
  std::set<std::string_view> names;
  for (size_t i = 0; i < d.arg_count; ++i) {
    const scoria_arg_spec& s = spec_at(d, i);
    const std::string which = "argument " + std::to_string(i + 1);
    if (s.struct_size != d.args[0].struct_size) {
      out.push_back(which + " has struct_size " + std::to_string(s.struct_size) + ", the first " +
                    std::to_string(d.args[0].struct_size) + "; every spec must have the same");
      return out;  // the stride is wrong: nothing further can be read safely
    }
    if (s.name == nullptr || s.name[0] == '\0') {
      out.push_back(which + " has no name");
      continue;
    }
    const std::string named = which + " (" + quote(s.name) + ")";
    if (!names.insert(s.name).second) out.push_back(named + " is declared twice");
    if (s.type < SCORIA_ARG_BOOL || s.type > SCORIA_ARG_MAP)
      out.push_back(named + " has unknown type " + std::to_string(s.type));
    if ((s.bounds & SCORIA_ARG_HAS_MIN) && (s.bounds & SCORIA_ARG_HAS_MAX) && s.min > s.max)
      out.push_back(named + " has a minimum above its maximum");
  }
  if (!out.empty()) return out;
  // Defaults last: they are checked as any value is, which needs sound specs.
  const auto specs = declared_args(d);
  for (const ArgSpec& spec : *specs)
    if (spec.default_value) {
      const std::string problem = spec.type == SCORIA_ARG_MAP
                                      ? "a map has no default"
                                      : value_problem(spec, *spec.default_value, false);
      if (!problem.empty())
        out.push_back("argument " + quote(spec.name) + " has default " +
                      quote(*spec.default_value) + ", " + problem + "; it takes " +
                      accepted_form(spec));
    }
  return out;
}

std::optional<std::vector<ArgSpec>> declared_args(const scoria_descriptor& d) {
  if (!declares(d)) return std::nullopt;
  std::vector<ArgSpec> out;
  out.reserve(d.arg_count);
  for (size_t i = 0; i < d.arg_count; ++i) {
    const scoria_arg_spec& s = spec_at(d, i);
    ArgSpec a;
    a.name = s.name;
    a.type = s.type;
    if (s.default_value != nullptr) a.default_value = s.default_value;
    if (s.help != nullptr) a.help = s.help;
    if (s.allowed != nullptr)
      for (const char* const* v = s.allowed; *v != nullptr && a.allowed.size() < kMaxArgs; ++v)
        a.allowed.emplace_back(*v);
    if (s.bounds & SCORIA_ARG_HAS_MIN) a.min = s.min;
    if (s.bounds & SCORIA_ARG_HAS_MAX) a.max = s.max;
    out.push_back(a);
  }
  return out;
}

std::vector<std::string> check_arguments(std::string_view owner, std::string_view plugin,
                                         std::span<const ArgSpec> specs,
                                         const config::Arguments& args,
                                         const config::ArgumentPlaces& places,
                                         std::string_view place) {
  std::vector<std::string> out;
  for (const auto& [key, value] : args) {
    const ArgSpec* spec = nullptr;
    Match how = Match::None;
    for (const ArgSpec& s : specs)
      if ((how = match(s, key)) != Match::None) {
        spec = &s;
        break;
      }
    const std::string where = place_of(places, place, key);
    if (spec == nullptr) {
      std::string msg = where + ": " + std::string(owner) + " has no argument " + quote(key);
      std::vector<std::string> names;
      for (const ArgSpec& s : specs) names.emplace_back(s.family() ? s.stem() : s.name);
      if (option_flag(key)) {
        msg += "; " + quote(key) +
               " is a plugin option, not an argument: write it beside the plugin's name, "
               "outside arguments";
      } else if (const auto near = model::closest(key, names)) {
        msg += "; did you mean " + quote(*near) + "?";
      } else if (names.empty()) {
        msg += "; it takes no arguments, remove it";
      } else {
        msg += "; it takes ";
        for (size_t i = 0; i < specs.size(); ++i)
          msg += (i ? ", " : "") + std::string(specs[i].name);
      }
      msg += " (scoria plugins --describe " + std::string(plugin) + " says what each does)";
      out.push_back(std::move(msg));
      continue;
    }
    if (how == Match::Below) continue;
    const std::string problem = value_problem(*spec, value, how == Match::Item);
    if (problem.empty()) continue;
    std::string msg = where + ": is " + quote(value) + ", " + problem + "; argument " +
                      quote(spec->name) + " of " + std::string(owner) + " takes " +
                      accepted_form(*spec) + ": write one, or remove the argument";
    msg += spec->default_value ? " to use its default (" + std::string(*spec->default_value) + ")"
                               : std::string();
    out.push_back(std::move(msg));
  }
  return out;
}

void add_defaults(std::span<const ArgSpec> specs, config::Arguments& args) {
  for (const ArgSpec& s : specs) {
    if (!s.default_value || s.family() || s.type == SCORIA_ARG_MAP) continue;
    // A list given item by item (NAME.0, ...) is given, though NAME is not.
    const auto below = args.lower_bound(std::string(s.name) + ".");
    if (s.type == SCORIA_ARG_LIST && below != args.end() &&
        below->first.starts_with(std::string(s.name) + "."))
      continue;
    args.try_emplace(std::string(s.name), *s.default_value);
  }
}

}  // namespace scoria::plugin
