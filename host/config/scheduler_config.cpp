// Reading the scheduler config: TOML (native) and Volcano's YAML (its
// scheduler ConfigMap content, or the whole ConfigMap), into one model.
#include "config/scheduler_config.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <toml++/toml.h>

#include "model/error.h"

namespace scoria::config {

namespace {

constexpr std::string_view kFlagNames[kFlagCount] = {
    "JobOrder",     "QueueOrder",      "TaskOrder",   "ClusterOrder",    "Predicate",
    "BestNode",     "NodeOrder",       "JobReady",    "JobPipelined",    "JobEnqueued",
    "JobStarving",  "Preemptable",     "Reclaimable", "Preemptive",      "Overused",
    "Allocatable",  "Victim",          "Hierarchy",   "TargetJob",       "ReservedNodes",
    "HyperNodeOrder", "SubJobReady",   "SubJobPipelined", "SubJobOrder", "HyperNodeGradient"};

// "enableJobOrder" / "enabledJobOrder" -> Flag::JobOrder.
std::optional<Flag> flag_of(std::string_view key) {
  std::string_view rest;
  if (key.starts_with("enabled"))
    rest = key.substr(7);
  else if (key.starts_with("enable"))
    rest = key.substr(6);
  else
    return std::nullopt;
  for (size_t i = 0; i < kFlagCount; ++i)
    if (kFlagNames[i] == rest) return static_cast<Flag>(i);
  return std::nullopt;
}

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t prev = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t cur = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1,
                         prev + (std::tolower(a[i - 1]) == std::tolower(b[j - 1]) ? 0 : 1)});
      prev = cur;
    }
  }
  return row[b.size()];
}

std::string closest_flag(std::string_view key) {
  std::string best;
  size_t best_d = SIZE_MAX;
  for (auto name : kFlagNames) {
    std::string candidate = "enable" + std::string(name);
    size_t d = edit_distance(key, candidate);
    if (d < best_d) best_d = d, best = candidate;
  }
  return best;
}

// Splits Volcano's "enqueue, allocate, backfill".
std::vector<std::string> split_actions(std::string_view text) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : text) {
    if (c == ',') {
      out.push_back(cur);
      cur.clear();
    } else if (!std::isspace(static_cast<unsigned char>(c))) {
      cur += c;
    }
  }
  out.push_back(cur);
  std::erase_if(out, [](const std::string& s) { return s.empty(); });
  return out;
}

// "1s", "500ms", "2m", or a plain number of milliseconds.
int64_t parse_period(std::string_view text, const std::string& where) {
  double value = 0;
  size_t used = 0;
  try {
    value = std::stod(std::string(text), &used);
  } catch (const std::exception&) {
    throw InputError(where + ": \"" + std::string(text) +
                     "\" is not a duration; write e.g. \"1s\", \"500ms\" or \"2m\"");
  }
  std::string_view unit = text.substr(used);
  double ms = unit == "ms" || unit.empty() ? value
              : unit == "s"                ? value * 1000
              : unit == "m"                ? value * 60000
                                           : -1;
  if (ms <= 0)
    throw InputError(where + ": \"" + std::string(text) +
                     "\" is not a positive duration; write e.g. \"1s\", \"500ms\" or \"2m\"");
  return static_cast<int64_t>(ms);
}

// Final checks shared by both formats.
void validate(const SchedulerConfig& c, const std::string& file) {
  if (c.actions.empty())
    throw InputError(file + ": actions: the list is empty; name at least one action, e.g. "
                            "actions = [\"enqueue\", \"allocate\"]");
  std::set<std::string_view> seen;
  for (const auto& a : c.actions)
    if (!seen.insert(a).second)
      throw InputError(file + ": actions: \"" + a + "\" is listed twice; list each action once");
  std::set<std::string_view> plugins;
  for (size_t t = 0; t < c.tiers.size(); ++t)
    for (size_t p = 0; p < c.tiers[t].plugins.size(); ++p) {
      const auto& name = c.tiers[t].plugins[p].name;
      std::string where = file + ": tiers[" + std::to_string(t) + "].plugins[" +
                          std::to_string(p) + "]";
      if (name.empty()) throw InputError(where + ": the plugin has no name; add name = \"...\"");
      if (!plugins.insert(name).second)
        throw InputError(where + ": plugin \"" + name +
                         "\" appears twice in the tiers; keep it in one place");
    }
}

// ---------------------------------------------------------------------------
// YAML (Volcano)

std::string yaml_where(const std::string& file, const YAML::Node& n, const std::string& path) {
  std::string out = file;
  if (n.Mark().line >= 0) out += ":" + std::to_string(n.Mark().line + 1);
  return out + ": " + path;
}

// Flattens nested maps into dotted keys; scalars keep their text.
void flatten(const YAML::Node& n, const std::string& prefix, Arguments& out,
             const std::string& file) {
  if (n.IsMap()) {
    for (const auto& kv : n)
      flatten(kv.second, prefix.empty() ? kv.first.as<std::string>()
                                        : prefix + "." + kv.first.as<std::string>(),
              out, file);
  } else if (n.IsScalar()) {
    out[prefix] = n.Scalar();
  } else if (n.IsSequence()) {
    std::string joined;
    for (const auto& item : n) {
      if (!item.IsScalar())
        throw InputError(yaml_where(file, item, "arguments." + prefix) +
                         ": lists may hold only plain values");
      joined += (joined.empty() ? "" : ",") + item.Scalar();
    }
    out[prefix] = joined;
  }
}

bool yaml_bool(const YAML::Node& n, const std::string& file, const std::string& path) {
  if (n.IsScalar()) {
    const std::string& s = n.Scalar();
    if (s == "true" || s == "True" || s == "TRUE") return true;
    if (s == "false" || s == "False" || s == "FALSE") return false;
  }
  throw InputError(yaml_where(file, n, path) + ": must be true or false");
}

PluginOption yaml_plugin(const YAML::Node& n, const std::string& file, const std::string& path) {
  if (!n.IsMap())
    throw InputError(yaml_where(file, n, path) + ": expected a map with at least `name`");
  PluginOption opt;
  for (const auto& kv : n) {
    const std::string key = kv.first.as<std::string>();
    if (key == "name") {
      opt.name = kv.second.Scalar();
    } else if (key == "arguments") {
      if (!kv.second.IsNull()) {
        if (!kv.second.IsMap())
          throw InputError(yaml_where(file, kv.second, path + ".arguments") + ": expected a map");
        flatten(kv.second, "", opt.arguments, file);
      }
    } else if (auto f = flag_of(key)) {
      opt.flags[static_cast<size_t>(*f)] = yaml_bool(kv.second, file, path + "." + key);
    } else {
      throw InputError(yaml_where(file, kv.first, path + "." + key) +
                       ": unknown plugin option; did you mean " + closest_flag(key) +
                       "? (options: name, arguments, enable<Hook>/enabled<Hook>)");
    }
  }
  return opt;
}

SchedulerConfig parse_yaml(std::string_view text, const std::string& file) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    throw InputError(file + ":" + std::to_string(e.mark.line + 1) + ":" +
                     std::to_string(e.mark.column + 1) + ": YAML syntax error: " + e.msg);
  }
  if (!root.IsMap()) throw InputError(file + ": expected a map with `actions` and `tiers`");
  // The whole ConfigMap: the config is the text of its one data entry.
  if (root["kind"] && root["kind"].Scalar() == "ConfigMap") {
    const YAML::Node data = root["data"];
    if (!data || !data.IsMap() || data.size() != 1)
      throw InputError(file + ": data: a scheduler ConfigMap holds exactly one entry (usually "
                              "volcano-scheduler.conf)");
    auto entry = data.begin();
    return parse_yaml(entry->second.Scalar(), file + " (data." + entry->first.Scalar() + ")");
  }
  SchedulerConfig c;
  for (const auto& kv : root) {
    const std::string key = kv.first.as<std::string>();
    const YAML::Node& v = kv.second;
    if (key == "actions") {
      if (v.IsSequence())
        for (const auto& a : v) c.actions.push_back(a.Scalar());
      else
        c.actions = split_actions(v.Scalar());
    } else if (key == "tiers") {
      if (!v.IsSequence()) throw InputError(yaml_where(file, v, "tiers") + ": expected a list");
      for (size_t t = 0; t < v.size(); ++t) {
        Tier tier;
        const YAML::Node plugins = v[t]["plugins"];
        std::string path = "tiers[" + std::to_string(t) + "].plugins";
        if (!plugins || !plugins.IsSequence())
          throw InputError(yaml_where(file, v[t], path) + ": each tier needs a `plugins` list");
        for (size_t p = 0; p < plugins.size(); ++p)
          tier.plugins.push_back(
              yaml_plugin(plugins[p], file, path + "[" + std::to_string(p) + "]"));
        c.tiers.push_back(std::move(tier));
      }
    } else if (key == "configurations") {
      if (!v.IsSequence())
        throw InputError(yaml_where(file, v, "configurations") + ": expected a list");
      for (size_t i = 0; i < v.size(); ++i) {
        std::string path = "configurations[" + std::to_string(i) + "]";
        if (!v[i]["name"])
          throw InputError(yaml_where(file, v[i], path) + ": needs the action `name`");
        Arguments& args = c.action_arguments[v[i]["name"].Scalar()];
        if (v[i]["arguments"] && v[i]["arguments"].IsMap()) flatten(v[i]["arguments"], "", args, file);
      }
    } else if (key == "plugin_dirs" || key == "pluginDirs") {
      for (const auto& d : v) c.plugin_dirs.emplace_back(d.Scalar());
    } else if (key == "schedule_period" || key == "schedulePeriod") {
      c.schedule_period_ms = parse_period(v.Scalar(), yaml_where(file, v, key));
    } else if (key == "metrics") {
      // Volcano's metrics settings: accepted, not used by Scoria.
    } else {
      throw InputError(yaml_where(file, kv.first, key) +
                       ": unknown key; a scheduler config has actions, tiers, configurations, "
                       "metrics, plugin_dirs and schedule_period");
    }
  }
  return c;
}

// ---------------------------------------------------------------------------
// TOML (native)

std::string toml_where(const std::string& file, const toml::node& n, const std::string& path) {
  const auto& src = n.source();
  return file + ":" + std::to_string(src.begin.line) + ":" + std::to_string(src.begin.column) +
         ": " + path;
}

std::string toml_text(const toml::node& n, const std::string& file, const std::string& path) {
  if (auto s = n.as_string()) return s->get();
  if (auto b = n.as_boolean()) return b->get() ? "true" : "false";
  if (auto i = n.as_integer()) return std::to_string(i->get());
  if (auto f = n.as_floating_point()) {
    std::ostringstream o;
    o << f->get();
    return o.str();
  }
  throw InputError(toml_where(file, n, path) + ": expected a string, number or boolean");
}

void toml_flatten(const toml::table& t, const std::string& prefix, Arguments& out,
                  const std::string& file, const std::string& path) {
  for (const auto& [k, v] : t) {
    std::string key = prefix.empty() ? std::string(k.str()) : prefix + "." + std::string(k.str());
    if (auto sub = v.as_table())
      toml_flatten(*sub, key, out, file, path);
    else
      out[key] = toml_text(v, file, path + "." + key);
  }
}

PluginOption toml_plugin(const toml::node& n, const std::string& file, const std::string& path) {
  const toml::table* t = n.as_table();
  if (t == nullptr)
    throw InputError(toml_where(file, n, path) + ": expected a table such as { name = \"gang\" }");
  PluginOption opt;
  for (const auto& [k, v] : *t) {
    const std::string key(k.str());
    if (key == "name") {
      if (!v.is_string()) throw InputError(toml_where(file, v, path + ".name") + ": expected a string");
      opt.name = v.as_string()->get();
    } else if (key == "arguments") {
      if (!v.is_table()) throw InputError(toml_where(file, v, path + ".arguments") + ": expected a table");
      toml_flatten(*v.as_table(), "", opt.arguments, file, path + ".arguments");
    } else if (auto f = flag_of(key)) {
      if (!v.is_boolean())
        throw InputError(toml_where(file, v, path + "." + key) + ": must be true or false");
      opt.flags[static_cast<size_t>(*f)] = v.as_boolean()->get();
    } else {
      throw InputError(toml_where(file, v, path + "." + key) +
                       ": unknown plugin option; did you mean " + closest_flag(key) +
                       "? (options: name, arguments, enable<Hook>/enabled<Hook>)");
    }
  }
  return opt;
}

int32_t toml_int(const toml::node& v, const std::string& file, const std::string& key) {
  if (!v.is_integer()) throw InputError(toml_where(file, v, key) + ": expected a whole number");
  return static_cast<int32_t>(v.as_integer()->get());
}

SchedulerConfig parse_toml(std::string_view text, const std::string& file) {
  toml::table root;
  try {
    root = toml::parse(text, file);
  } catch (const toml::parse_error& e) {
    throw InputError(file + ":" + std::to_string(e.source().begin.line) + ":" +
                     std::to_string(e.source().begin.column) + ": TOML syntax error: " +
                     std::string(e.description()));
  }
  SchedulerConfig c;
  for (const auto& [k, v] : root) {
    const std::string key(k.str());
    if (key == "actions") {
      if (auto s = v.as_string()) {
        c.actions = split_actions(s->get());
      } else if (auto a = v.as_array()) {
        for (const auto& item : *a) {
          if (!item.is_string())
            throw InputError(toml_where(file, item, "actions") + ": action names are strings");
          c.actions.push_back(item.as_string()->get());
        }
      } else {
        throw InputError(toml_where(file, v, "actions") +
                         ": expected a list such as [\"enqueue\", \"allocate\"]");
      }
    } else if (key == "tiers") {
      const toml::array* tiers = v.as_array();
      if (tiers == nullptr)
        throw InputError(toml_where(file, v, "tiers") + ": expected [[tiers]] tables");
      for (size_t t = 0; t < tiers->size(); ++t) {
        std::string path = "tiers[" + std::to_string(t) + "]";
        const toml::table* tier = (*tiers)[t].as_table();
        const toml::array* plugins = tier ? (*tier)["plugins"].as_array() : nullptr;
        if (plugins == nullptr)
          throw InputError(toml_where(file, (*tiers)[t], path) + ": each tier needs a plugins list");
        Tier out;
        for (size_t p = 0; p < plugins->size(); ++p)
          out.plugins.push_back(
              toml_plugin((*plugins)[p], file, path + ".plugins[" + std::to_string(p) + "]"));
        c.tiers.push_back(std::move(out));
      }
    } else if (key == "configurations") {
      const toml::array* list = v.as_array();
      if (list == nullptr)
        throw InputError(toml_where(file, v, key) + ": expected [[configurations]] tables");
      for (size_t i = 0; i < list->size(); ++i) {
        std::string path = "configurations[" + std::to_string(i) + "]";
        const toml::table* entry = (*list)[i].as_table();
        if (entry == nullptr || !(*entry)["name"].is_string())
          throw InputError(toml_where(file, (*list)[i], path) + ": needs the action `name`");
        Arguments& args = c.action_arguments[(*entry)["name"].as_string()->get()];
        if (const toml::table* a = (*entry)["arguments"].as_table())
          toml_flatten(*a, "", args, file, path + ".arguments");
      }
    } else if (key == "plugin_dirs") {
      const toml::array* dirs = v.as_array();
      if (dirs == nullptr) throw InputError(toml_where(file, v, key) + ": expected a list of paths");
      for (const auto& d : *dirs) {
        if (!d.is_string()) throw InputError(toml_where(file, d, key) + ": paths are strings");
        c.plugin_dirs.emplace_back(d.as_string()->get());
      }
    } else if (key == "schedule_period") {
      if (auto i = v.as_integer())
        c.schedule_period_ms = i->get();
      else
        c.schedule_period_ms = parse_period(toml_text(v, file, key), toml_where(file, v, key));
    } else if (key == "min_nodes_to_find") {
      c.min_nodes_to_find = toml_int(v, file, key);
    } else if (key == "min_percentage_of_nodes_to_find") {
      c.min_percentage_of_nodes_to_find = toml_int(v, file, key);
    } else if (key == "percentage_of_nodes_to_find") {
      c.percentage_of_nodes_to_find = toml_int(v, file, key);
    } else {
      throw InputError(toml_where(file, v, key) +
                       ": unknown key; a scheduler config has actions, tiers, configurations, "
                       "plugin_dirs, schedule_period and the *_nodes_to_find settings");
    }
  }
  return c;
}

bool looks_like_toml(std::string_view text) {
  // TOML's [[tiers]] or `actions = `; Volcano YAML uses `actions:`.
  return text.find("[[tiers]]") != std::string_view::npos ||
         text.find("actions =") != std::string_view::npos ||
         text.find("actions=") != std::string_view::npos;
}

}  // namespace

std::string_view flag_name(Flag f) { return kFlagNames[static_cast<size_t>(f)]; }

SchedulerConfig parse_config(std::string_view text, const std::string& file_name) {
  std::string ext = std::filesystem::path(file_name).extension().string();
  bool toml = ext == ".toml" ||
              (ext != ".yaml" && ext != ".yml" && ext != ".json" && ext != ".conf" &&
               looks_like_toml(text));
  SchedulerConfig c = toml ? parse_toml(text, file_name) : parse_yaml(text, file_name);
  validate(c, file_name);
  return c;
}

SchedulerConfig load_config(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in)
    throw InputError(file.string() + ": cannot be read; check the path given to --config");
  std::stringstream text;
  text << in.rdbuf();
  return parse_config(text.str(), file.string());
}

}  // namespace scoria::config
