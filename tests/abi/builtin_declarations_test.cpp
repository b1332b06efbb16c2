// Every built-in action and plugin declares its arguments (ABI 1.2), so the
// host refuses any argument it does not take; and
// tests/config/volcano/every-argument.yaml, Volcano's arguments at Volcano's
// defaults, names every declared argument at its declared default. A
// declaration that drifts from that config, or an argument declared without
// it, fails here; the Config.VolcanoConfigAccepted tests run the same file
// through `scoria check-config`.
#include <scoria/scoria.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "abi/host_api.h"
#include "config/scheduler_config.h"
#include "plugin/declared_args.h"
#include "plugin/loaded_plugin.h"
#include "plugin/plugin_registry.h"

namespace {

namespace fs = std::filesystem;
using scoria::config::Arguments;
using scoria::plugin::ArgSpec;
using scoria::plugin::PluginRegistry;

const std::vector<std::string> kActions = {"allocate",    "backfill", "enqueue", "gangpreempt",
                                           "gangreclaim", "preempt",  "reclaim", "shuffle"};
const std::vector<std::string> kPlugins = {"binpack",
                                           "capacity",
                                           "cdp",
                                           "conformance",
                                           "deviceshare",
                                           "drf",
                                           "extender",
                                           "gang",
                                           "network-topology-aware",
                                           "nodegroup",
                                           "nodeorder",
                                           "numa-aware",
                                           "overcommit",
                                           "pdb",
                                           "predicates",
                                           "priority",
                                           "proportion",
                                           "rescheduling",
                                           "resource-strategy-fit",
                                           "resourcequota",
                                           "sla",
                                           "task-topology",
                                           "tdm",
                                           "usage"};

const fs::path kEveryArgument = fs::path(SCORIA_VOLCANO_CONFIGS) / "every-argument.yaml";

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class BuiltinDeclarations : public ::testing::Test {
 protected:
  void SetUp() override { registry.scan({fs::path(SCORIA_BUILTIN_PLUGINS)}); }

  std::vector<ArgSpec> specs_of(const std::string& name) {
    const auto loaded = registry.find(name);
    if (loaded == nullptr) {
      ADD_FAILURE() << name << " is not built";
      return {};
    }
    const auto specs = scoria::plugin::declared_args(*loaded->descriptor);
    if (!specs) {
      ADD_FAILURE() << name << " does not declare its arguments (SCORIA_FLAG_DECLARES_ARGS)";
      return {};
    }
    return *specs;
  }

  PluginRegistry registry{scoria::abi::host_api()};
};

// Whether `args` gives `spec`: the key itself, a list's or map's flattened
// keys (NAME.0, NAME.KEY), or one key of a family.
bool given(const ArgSpec& spec, const Arguments& args) {
  const std::string prefix =
      std::string(spec.family() ? spec.stem() : spec.name) + (spec.family() ? "" : ".");
  if (spec.type != SCORIA_ARG_MAP && !spec.family() && args.contains(spec.name)) return true;
  if (spec.type != SCORIA_ARG_LIST && spec.type != SCORIA_ARG_MAP && !spec.family()) return false;
  const auto below = args.lower_bound(prefix);
  return below != args.end() && below->first.starts_with(prefix);
}

TEST_F(BuiltinDeclarations, EveryBuiltinDeclaresItsArguments) {
  for (const auto& name : kActions) {
    ASSERT_NE(registry.find(name), nullptr) << name;
    EXPECT_EQ(registry.find(name)->descriptor->kind, SCORIA_KIND_ACTION) << name;
    specs_of(name);
  }
  for (const auto& name : kPlugins) {
    ASSERT_NE(registry.find(name), nullptr) << name;
    EXPECT_EQ(registry.find(name)->descriptor->kind, SCORIA_KIND_PLUGIN) << name;
    specs_of(name);
  }
  // Nothing built in is left out of the lists above.
  std::vector<std::string> all = kActions;
  all.insert(all.end(), kPlugins.begin(), kPlugins.end());
  for (const auto& p : registry.list())
    EXPECT_NE(std::find(all.begin(), all.end(), p.name), all.end())
        << p.name << " is built in; add it to this test and to " << kEveryArgument;
}

TEST_F(BuiltinDeclarations, EveryArgumentConfigNamesEachDeclaredArgumentAtItsDefault) {
  const auto config = scoria::config::parse_config(read(kEveryArgument), kEveryArgument.string());
  std::vector<std::pair<std::string, const Arguments*>> owners;
  static const Arguments kNone;
  for (const auto& name : kActions) {
    EXPECT_NE(std::find(config.actions.begin(), config.actions.end(), name), config.actions.end())
        << "action " << name << " is not in " << kEveryArgument;
    const auto args = config.action_arguments.find(name);
    owners.emplace_back(name, args == config.action_arguments.end() ? &kNone : &args->second);
  }
  std::set<std::string> seen;
  for (const auto& tier : config.tiers)
    for (const auto& option : tier.plugins) {
      seen.insert(option.name);
      owners.emplace_back(option.name, &option.arguments);
    }
  for (const auto& name : kPlugins)
    EXPECT_TRUE(seen.contains(name)) << "plugin " << name << " is not in " << kEveryArgument;

  for (const auto& [owner, args] : owners)
    for (const ArgSpec& spec : specs_of(owner)) {
      EXPECT_TRUE(given(spec, *args))
          << owner << " declares " << spec.name << ", which " << kEveryArgument << " does not give";
      if (!spec.default_value || spec.family() || spec.type == SCORIA_ARG_LIST) continue;
      const auto it = args->find(spec.name);
      if (it == args->end()) continue;
      EXPECT_EQ(it->second, *spec.default_value)
          << owner << "'s " << spec.name << " is given at " << it->second
          << " but declared with default " << *spec.default_value;
    }
}

TEST_F(BuiltinDeclarations, EveryDeclaredArgumentHasAHelpLine) {
  std::vector<std::string> all = kActions;
  all.insert(all.end(), kPlugins.begin(), kPlugins.end());
  for (const auto& name : all)
    for (const ArgSpec& spec : specs_of(name)) {
      EXPECT_FALSE(spec.help.empty()) << name << "'s " << spec.name << " has no help";
      EXPECT_EQ(spec.help.find('\n'), std::string_view::npos)
          << name << "'s " << spec.name << " has more than one line of help";
    }
}

}  // namespace
