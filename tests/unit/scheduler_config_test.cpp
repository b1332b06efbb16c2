#include "config/scheduler_config.h"

#include "config/config_changes.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "model/error.h"

namespace scoria::config {
namespace {

namespace fs = std::filesystem;

constexpr size_t kJobOrder = static_cast<size_t>(Flag::JobOrder);
constexpr size_t kPreemptable = static_cast<size_t>(Flag::Preemptable);
constexpr size_t kJobStarving = static_cast<size_t>(Flag::JobStarving);

/// Every field of a config as text, so that two configs compare with a
/// readable difference.
std::string render(const SchedulerConfig& c) {
  std::ostringstream out;
  out << "actions:";
  for (const auto& a : c.actions) out << " " << a;
  out << "\n";
  for (size_t t = 0; t < c.tiers.size(); ++t) {
    out << "tier " << t << "\n";
    for (const auto& p : c.tiers[t].plugins) {
      out << "  plugin " << p.name << "\n";
      for (size_t f = 0; f < kFlagCount; ++f)
        if (p.flags[f])
          out << "    " << flag_name(static_cast<Flag>(f)) << "=" << *p.flags[f] << "\n";
      for (const auto& [k, v] : p.arguments) out << "    arg " << k << "=" << v << "\n";
    }
  }
  for (const auto& [action, args] : c.action_arguments) {
    out << "configuration " << action << "\n";
    for (const auto& [k, v] : args) out << "  arg " << k << "=" << v << "\n";
  }
  for (const auto& d : c.plugin_dirs) out << "plugin_dir " << d.string() << "\n";
  out << "period " << c.schedule_period_ms << "\n";
  out << "feasible " << c.min_nodes_to_find << " " << c.min_percentage_of_nodes_to_find << " "
      << c.percentage_of_nodes_to_find << "\n";
  return out.str();
}

/// The InputError message parsing `text` throws; a test failure if it parses.
std::string error_of(std::string_view text, const std::string& file) {
  try {
    parse_config(text, file);
  } catch (const InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << file << " was accepted:\n" << text;
  return "";
}

::testing::AssertionResult has(const std::string& message, std::string_view part) {
  if (message.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "\"" << part << "\" is not in: " << message;
}

const PluginOption& plugin(const SchedulerConfig& c, size_t tier, size_t index) {
  return c.tiers.at(tier).plugins.at(index);
}

// ===========================================================================
// One config, every syntax
// ===========================================================================

constexpr std::string_view kToml = R"(# every feature once
actions = ["enqueue", "allocate", "backfill"]
schedule_period = "500ms"
plugin_dirs = ["/opt/scoria/plugins"]

[[tiers]]
plugins = [
  { name = "priority" },
  { name = "gang", enablePreemptable = false, enabledJobStarving = true },
]

[[tiers]]
[[tiers.plugins]]
name = "predicates"
arguments = { "predicate.NodeAffinityEnable" = true, "predicate.GPUSharingEnable" = false }

[[tiers.plugins]]
name = "binpack"
[tiers.plugins.arguments]
"binpack.weight" = 10
"binpack.cpu" = 0.5
"binpack.resources" = "nvidia.com/gpu"
"binpack.resources.nvidia.com/gpu" = 2
usage = { thresholds = { cpu = 80, mem = 70 } }

[[tiers.plugins]]
name = "task-topology"
arguments = { "task-topology.weight" = 10 }

[[tiers.plugins]]
name = "extender"
[tiers.plugins.arguments]
"extender.urlPrefix" = "http://127.0.0.1:8888"
"extender.httpTimeout" = "100ms"
"extender.predicateVerb" = "predicate"
"extender.ignorable" = true
"extender.managedResources" = ["nvidia.com/gpu", "nvidia.com/gpumem"]

[[configurations]]
name = "allocate"
arguments = { enablePredicateErrorCache = true }
)";

constexpr std::string_view kYaml = R"(# the same in Volcano's form
actions: "enqueue, allocate, backfill"
schedule_period: 500ms
plugin_dirs: [/opt/scoria/plugins]
tiers:
- plugins:
  - name: priority
  - name: gang
    enablePreemptable: false
    enabledJobStarving: true
- plugins:
  - name: predicates
    arguments:
      predicate.NodeAffinityEnable: true
      predicate.GPUSharingEnable: false
  - name: binpack
    arguments:
      binpack.weight: 10
      binpack.cpu: 0.5
      binpack.resources: nvidia.com/gpu
      binpack.resources.nvidia.com/gpu: 2
      usage:
        thresholds: {cpu: 80, mem: 70}
  - name: task-topology
    arguments:
      task-topology.weight: 10
  - name: extender
    arguments:
      extender.urlPrefix: http://127.0.0.1:8888
      extender.httpTimeout: 100ms
      extender.predicateVerb: predicate
      extender.ignorable: true
      extender.managedResources:
      - nvidia.com/gpu
      - nvidia.com/gpumem
configurations:
- name: allocate
  arguments:
    enablePredicateErrorCache: true
metrics:
  type: prometheus
  interval: 30s
)";

constexpr std::string_view kJson = R"({
  "actions": "enqueue, allocate, backfill",
  "schedule_period": "500ms",
  "plugin_dirs": ["/opt/scoria/plugins"],
  "tiers": [
    {"plugins": [{"name": "priority"},
                 {"name": "gang", "enablePreemptable": false, "enabledJobStarving": true}]},
    {"plugins": [
      {"name": "predicates", "arguments": {"predicate.NodeAffinityEnable": true,
                                           "predicate.GPUSharingEnable": false}},
      {"name": "binpack", "arguments": {"binpack.weight": 10, "binpack.cpu": 0.5,
                                        "binpack.resources": "nvidia.com/gpu",
                                        "binpack.resources.nvidia.com/gpu": 2,
                                        "usage": {"thresholds": {"cpu": 80, "mem": 70}}}},
      {"name": "task-topology", "arguments": {"task-topology.weight": 10}},
      {"name": "extender", "arguments": {"extender.urlPrefix": "http://127.0.0.1:8888",
                                         "extender.httpTimeout": "100ms",
                                         "extender.predicateVerb": "predicate",
                                         "extender.ignorable": true,
                                         "extender.managedResources": ["nvidia.com/gpu",
                                                                       "nvidia.com/gpumem"]}}]}
  ],
  "configurations": [{"name": "allocate", "arguments": {"enablePredicateErrorCache": true}}]
})";

TEST(SchedulerConfig, TomlReadsEveryFeature) {
  const SchedulerConfig c = parse_config(kToml, "scheduler.toml");
  EXPECT_EQ(c.actions, (std::vector<std::string>{"enqueue", "allocate", "backfill"}));
  ASSERT_EQ(c.tiers.size(), 2u);
  ASSERT_EQ(c.tiers[0].plugins.size(), 2u);
  ASSERT_EQ(c.tiers[1].plugins.size(), 4u);
  EXPECT_EQ(plugin(c, 0, 0).name, "priority");
  EXPECT_EQ(plugin(c, 0, 1).name, "gang");
  EXPECT_EQ(plugin(c, 0, 1).flags[kPreemptable], false);
  EXPECT_EQ(plugin(c, 0, 1).flags[kJobStarving], true);
  EXPECT_FALSE(plugin(c, 0, 1).enabled(Flag::Preemptable));
  EXPECT_TRUE(plugin(c, 0, 1).enabled(Flag::JobOrder));
  EXPECT_EQ(plugin(c, 1, 0).arguments, (Arguments{{"predicate.GPUSharingEnable", "false"},
                                                  {"predicate.NodeAffinityEnable", "true"}}));
  EXPECT_EQ(plugin(c, 1, 1).arguments, (Arguments{{"binpack.cpu", "0.5"},
                                                  {"binpack.resources", "nvidia.com/gpu"},
                                                  {"binpack.resources.nvidia.com/gpu", "2"},
                                                  {"binpack.weight", "10"},
                                                  {"usage.thresholds.cpu", "80"},
                                                  {"usage.thresholds.mem", "70"}}));
  // A dotted argument name, quoted in TOML, arrives as the one key Volcano reads.
  EXPECT_EQ(plugin(c, 1, 2).name, "task-topology");
  EXPECT_EQ(plugin(c, 1, 2).arguments, (Arguments{{"task-topology.weight", "10"}}));
  // A list (Volcano's extender.managedResources) arrives as its items.
  EXPECT_EQ(plugin(c, 1, 3).name, "extender");
  EXPECT_EQ(plugin(c, 1, 3).arguments,
            (Arguments{{"extender.httpTimeout", "100ms"},
                       {"extender.ignorable", "true"},
                       {"extender.managedResources.0", "nvidia.com/gpu"},
                       {"extender.managedResources.1", "nvidia.com/gpumem"},
                       {"extender.predicateVerb", "predicate"},
                       {"extender.urlPrefix", "http://127.0.0.1:8888"}}));
  ASSERT_EQ(c.action_arguments.size(), 1u);
  EXPECT_EQ(c.action_arguments.at("allocate"), (Arguments{{"enablePredicateErrorCache", "true"}}));
  EXPECT_EQ(c.plugin_dirs, (std::vector<fs::path>{"/opt/scoria/plugins"}));
  EXPECT_EQ(c.schedule_period_ms, 500);
}

TEST(SchedulerConfig, YamlAndJsonGiveTheSameConfigAsToml) {
  const std::string toml = render(parse_config(kToml, "scheduler.toml"));
  EXPECT_EQ(render(parse_config(kYaml, "volcano-scheduler.conf")), toml);
  EXPECT_EQ(render(parse_config(kYaml, "scheduler.yaml")), toml);
  EXPECT_EQ(render(parse_config(kJson, "scheduler.json")), toml);
}

TEST(SchedulerConfig, ActionsAsOneStringOrAList) {
  const auto list = parse_config(R"(actions = ["enqueue", "allocate"])", "a.toml");
  const auto text = parse_config(R"(actions = " enqueue ,allocate ")", "b.toml");
  const auto yaml_list = parse_config("actions: [enqueue, allocate]", "c.yaml");
  const std::vector<std::string> want = {"enqueue", "allocate"};
  EXPECT_EQ(list.actions, want);
  EXPECT_EQ(text.actions, want);
  EXPECT_EQ(yaml_list.actions, want);
}

TEST(SchedulerConfig, TierOfTablesFormEqualsInlineForm) {
  const auto inline_form = parse_config(R"(
actions = ["allocate"]
[[tiers]]
plugins = [ { name = "priority" }, { name = "gang", enableJobOrder = false } ]
)",
                                        "a.toml");
  const auto table_form = parse_config(R"(
actions = ["allocate"]
[[tiers]]
[[tiers.plugins]]
name = "priority"
[[tiers.plugins]]
name = "gang"
enableJobOrder = false
)",
                                       "b.toml");
  EXPECT_EQ(render(inline_form), render(table_form));
  EXPECT_EQ(plugin(table_form, 0, 1).flags[kJobOrder], false);
}

// ===========================================================================
// Enable flags
// ===========================================================================

TEST(SchedulerConfig, FlagNamesAreVolcanosKeysWithoutPrefix) {
  constexpr std::array<std::string_view, kFlagCount> kNames = {
      "JobOrder",       "QueueOrder",  "TaskOrder",       "ClusterOrder", "Predicate",
      "BestNode",       "NodeOrder",   "JobReady",        "JobPipelined", "JobEnqueued",
      "JobStarving",    "Preemptable", "Reclaimable",     "Preemptive",   "Overused",
      "Allocatable",    "Victim",      "Hierarchy",       "TargetJob",    "ReservedNodes",
      "HyperNodeOrder", "SubJobReady", "SubJobPipelined", "SubJobOrder",  "HyperNodeGradient"};
  for (size_t f = 0; f < kFlagCount; ++f)
    EXPECT_EQ(flag_name(static_cast<Flag>(f)), kNames[f]) << "flag " << f;
}

class EveryFlag : public ::testing::TestWithParam<size_t> {};

TEST_P(EveryFlag, BothSpellingsInBothSyntaxesSetOnlyThatFlag) {
  const size_t f = GetParam();
  const std::string name(flag_name(static_cast<Flag>(f)));
  for (const std::string prefix : {"enable", "enabled"}) {
    const std::string key = prefix + name;
    const std::string toml =
        "actions = [\"allocate\"]\n[[tiers]]\nplugins = [{ name = \"p\", " + key + " = false }]\n";
    const std::string yaml =
        "actions: allocate\ntiers:\n- plugins:\n  - name: p\n    " + key + ": false\n";
    for (const auto& c : {parse_config(toml, "s.toml"), parse_config(yaml, "s.yaml")}) {
      const PluginOption& p = plugin(c, 0, 0);
      for (size_t other = 0; other < kFlagCount; ++other) {
        if (other == f) {
          EXPECT_EQ(p.flags[other], false) << key;
          EXPECT_FALSE(p.enabled(static_cast<Flag>(other))) << key;
        } else {
          EXPECT_FALSE(p.flags[other].has_value()) << key << " also set flag " << other;
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(All, EveryFlag, ::testing::Range<size_t>(0, kFlagCount),
                         [](const ::testing::TestParamInfo<size_t>& param) {
                           return std::string(flag_name(static_cast<Flag>(param.param)));
                         });

TEST(SchedulerConfig, FlagLeftOutIsEnabledExceptHierarchyAndClusterOrder) {
  const auto c = parse_config("actions: allocate\ntiers:\n- plugins:\n  - name: gang\n", "s.yaml");
  const PluginOption& p = plugin(c, 0, 0);
  for (size_t f = 0; f < kFlagCount; ++f) {
    const auto flag = static_cast<Flag>(f);
    EXPECT_FALSE(p.flags[f].has_value()) << flag_name(flag);
    // As in Volcano: these two must be asked for.
    const bool off_by_default = flag == Flag::Hierarchy || flag == Flag::ClusterOrder;
    EXPECT_EQ(p.enabled(flag), !off_by_default) << flag_name(flag);
  }
}

TEST(SchedulerConfig, FlagSetTrueIsEnabledAndRecorded) {
  const auto c = parse_config(
      "actions = [\"allocate\"]\n[[tiers]]\nplugins = [{ name = \"gang\", enableJobOrder = true }]",
      "s.toml");
  EXPECT_EQ(plugin(c, 0, 0).flags[kJobOrder], true);
  EXPECT_TRUE(plugin(c, 0, 0).enabled(Flag::JobOrder));
}

TEST(SchedulerConfig, YamlFlagsTakeYaml11BooleansAsVolcanoDoes) {
  const auto c = parse_config(R"(actions: allocate
tiers:
- plugins:
  - name: gang
    enableJobOrder: yes
    enableJobReady: off
    enableTaskOrder: False
)",
                              "s.yaml");
  EXPECT_EQ(plugin(c, 0, 0).flags[kJobOrder], true);
  EXPECT_EQ(plugin(c, 0, 0).flags[static_cast<size_t>(Flag::JobReady)], false);
  EXPECT_EQ(plugin(c, 0, 0).flags[static_cast<size_t>(Flag::TaskOrder)], false);
}

// ===========================================================================
// Arguments
// ===========================================================================

TEST(SchedulerConfig, TomlArgumentsBecomeTheirText) {
  const auto c = parse_config(R"(actions = ["allocate"]
[[tiers]]
[[tiers.plugins]]
name = "p"
[tiers.plugins.arguments]
int = 10
negative = -3
hex = 0x10
float = 0.5
whole_float = 2.0
exponent = 1e3
yes = true
no = false
text = "0.50"
binpack.weight = 3
nested = { a = { b = 1 } }
list = ["x", 2]
)",
                              "s.toml");
  EXPECT_EQ(plugin(c, 0, 0).arguments, (Arguments{{"binpack.weight", "3"},
                                                  {"exponent", "1000.0"},
                                                  {"float", "0.5"},
                                                  {"hex", "16"},
                                                  {"int", "10"},
                                                  {"list.0", "x"},
                                                  {"list.1", "2"},
                                                  {"negative", "-3"},
                                                  {"nested.a.b", "1"},
                                                  {"no", "false"},
                                                  {"text", "0.50"},
                                                  {"whole_float", "2.0"},
                                                  {"yes", "true"}}));
}

TEST(SchedulerConfig, YamlArgumentsKeepTheirTextAndFlatten) {
  const auto c = parse_config(R"(actions: allocate
tiers:
- plugins:
  - name: p
    arguments:
      binpack.resources: nvidia.com/gpu, example.com/foo
      binpack.weight: 10
      ratio: 0.50
      flag: True
      quoted: "007"
      a: {b: 1, c: {d: x}}
      empty:
      strategies:
      - name: lowNodeUtilization
        params: {cpu: 20}
)",
                              "s.yaml");
  EXPECT_EQ(plugin(c, 0, 0).arguments,
            (Arguments{{"a.b", "1"},
                       {"a.c.d", "x"},
                       {"binpack.resources", "nvidia.com/gpu, example.com/foo"},
                       {"binpack.weight", "10"},
                       {"empty", ""},
                       {"flag", "True"},
                       {"quoted", "007"},
                       {"ratio", "0.50"},
                       {"strategies.0.name", "lowNodeUtilization"},
                       {"strategies.0.params.cpu", "20"}}));
}

TEST(SchedulerConfig, ArgumentGivenNestedAndDottedIsRefused) {
  const std::string msg = error_of(R"(actions: allocate
tiers:
- plugins:
  - name: p
    arguments:
      a.b: 1
      a: {b: 2}
)",
                                   "dup.yaml");
  EXPECT_TRUE(has(msg, "dup.yaml: line 7"));
  EXPECT_TRUE(has(msg, "tiers[0].plugins[0].arguments[a.b]"));
  EXPECT_TRUE(has(msg, "keep one"));
}

TEST(SchedulerConfig, ArgumentsMustBeAMapping) {
  const std::string msg = error_of(
      "actions: allocate\ntiers:\n- plugins:\n  - name: p\n    arguments: [1, 2]\n", "a.yaml");
  EXPECT_TRUE(has(msg, "a.yaml: line 5"));
  EXPECT_TRUE(has(msg, "tiers[0].plugins[0].arguments"));
  EXPECT_TRUE(has(msg, "must be a mapping"));
}

// NaN and infinities mean nothing as a weight, threshold or ratio; whatever
// the syntax spells them as, the config is refused naming the file, the
// place, the plugin, the argument and the fix.
TEST(SchedulerConfig, NonFiniteArgumentIsRefused) {
  struct Case {
    std::string text;
    std::string file;
    std::string where;
    std::string value;
  };
  const std::vector<Case> cases = {
      {"actions = [\"allocate\"]\n[[tiers]]\nplugins = [{ name = \"binpack\", arguments = { "
       "\"binpack.weight\" = nan } }]\n",
       "w.toml", "w.toml: line 3", "\"nan\""},
      {"actions = [\"allocate\"]\n[[tiers]]\nplugins = [{ name = \"binpack\", arguments = { "
       "\"binpack.weight\" = -inf } }]\n",
       "w.toml", "w.toml: line 3", "\"-inf\""},
      {"actions: allocate\ntiers:\n- plugins:\n  - name: binpack\n    arguments:\n"
       "      binpack.weight: .nan\n",
       "w.yaml", "w.yaml: line 6", "\".nan\""},
      {"actions: allocate\ntiers:\n- plugins:\n  - arguments:\n      binpack.weight: -.Inf\n"
       "    name: binpack\n",
       "w.yaml", "w.yaml: line 5", "\"-.Inf\""},
      {"actions: allocate\ntiers:\n- plugins:\n  - name: binpack\n    arguments:\n"
       "      binpack.weight: \"Infinity\"\n",
       "w.yaml", "w.yaml: line 6", "\"Infinity\""},
      {"actions: allocate\ntiers:\n- plugins:\n  - name: binpack\n    arguments:\n"
       "      binpack.weight: 1e999\n",
       "w.yaml", "w.yaml: line 6", "\"1e999\""},
  };
  for (const Case& c : cases) {
    const std::string msg = error_of(c.text, c.file);
    EXPECT_TRUE(has(msg, c.where)) << msg;
    EXPECT_TRUE(has(msg, "tiers[0].plugins[0].arguments[binpack.weight]: is " + c.value +
                             ", not a finite number"))
        << msg;
    EXPECT_TRUE(has(msg, "argument \"binpack.weight\" of plugin \"binpack\"")) << msg;
    EXPECT_TRUE(has(msg, "write one (e.g. 1), or remove the argument")) << msg;
  }
}

TEST(SchedulerConfig, NonFiniteActionArgumentIsRefusedToo) {
  const std::string msg =
      error_of("actions: allocate\nconfigurations:\n- name: allocate\n  arguments: {ratio: .inf}\n",
               "c.yaml");
  EXPECT_TRUE(has(msg, "c.yaml: line 4"));
  EXPECT_TRUE(has(msg, "configurations[0].arguments[ratio]: is \".inf\", not a finite number"));
  EXPECT_TRUE(has(msg, "of action \"allocate\""));
}

TEST(SchedulerConfig, FiniteNumbersAndWordsStayArguments) {
  const SchedulerConfig c = parse_config(
      "actions: allocate\ntiers:\n- plugins:\n  - name: p\n    arguments:\n"
      "      a: 1e300\n      b: -0.5\n      c: info\n      d: nano\n      e: .5\n",
      "ok.yaml");
  EXPECT_EQ(c.tiers[0].plugins[0].arguments,
            (Arguments{{"a", "1e300"}, {"b", "-0.5"}, {"c", "info"}, {"d", "nano"}, {"e", ".5"}}));
}

// ===========================================================================
// Configurations
// ===========================================================================

TEST(SchedulerConfig, ConfigurationsGiveEachActionItsArguments) {
  const auto toml = parse_config(R"(actions = ["enqueue", "allocate"]
[[configurations]]
name = "allocate"
arguments = { enablePredicateErrorCache = true, "predicate.cache" = 5 }
[[configurations]]
name = "enqueue"
)",
                                 "s.toml");
  const auto yaml = parse_config(R"(actions: "enqueue, allocate"
configurations:
- name: allocate
  arguments:
    enablePredicateErrorCache: true
    predicate.cache: 5
- name: enqueue
)",
                                 "s.yaml");
  EXPECT_EQ(render(toml), render(yaml));
  EXPECT_EQ(toml.action_arguments.at("allocate"),
            (Arguments{{"enablePredicateErrorCache", "true"}, {"predicate.cache", "5"}}));
  EXPECT_TRUE(toml.action_arguments.at("enqueue").empty());
}

TEST(SchedulerConfig, ConfigurationErrorsNameThePlace) {
  std::string msg = error_of("actions: allocate\nconfigurations:\n- arguments: {a: 1}\n", "c.yaml");
  EXPECT_TRUE(has(msg, "c.yaml: line 3"));
  EXPECT_TRUE(has(msg, "configurations[0]: has no name"));

  msg = error_of("actions: allocate\nconfigurations:\n- name: allocate\n- name: allocate\n",
                 "c.yaml");
  EXPECT_TRUE(has(msg, "c.yaml: line 4"));
  EXPECT_TRUE(has(msg, "configurations[1]"));
  EXPECT_TRUE(has(msg, "configurations[0]"));

  msg = error_of("actions: allocate\nconfigurations:\n- name: allocate\n  args: {}\n", "c.yaml");
  EXPECT_TRUE(has(msg, "c.yaml: line 4"));
  EXPECT_TRUE(has(msg, "configurations[0].args"));
  EXPECT_TRUE(has(msg, "did you mean \"arguments\""));
}

// ===========================================================================
// The Kubernetes ConfigMap form
// ===========================================================================

constexpr std::string_view kConfigMap = R"(apiVersion: v1
kind: ConfigMap
metadata:
  name: volcano-scheduler-configmap
  namespace: volcano-system
data:
  volcano-scheduler.conf: |
    actions: "enqueue, allocate, backfill"
    schedule_period: 500ms
    plugin_dirs: [/opt/scoria/plugins]
    tiers:
    - plugins:
      - name: priority
      - name: gang
        enablePreemptable: false
        enabledJobStarving: true
    - plugins:
      - name: predicates
        arguments:
          predicate.NodeAffinityEnable: true
          predicate.GPUSharingEnable: false
      - name: binpack
        arguments:
          binpack.weight: 10
          binpack.cpu: 0.5
          binpack.resources: nvidia.com/gpu
          binpack.resources.nvidia.com/gpu: 2
          usage:
            thresholds: {cpu: 80, mem: 70}
      - name: task-topology
        arguments:
          task-topology.weight: 10
      - name: extender
        arguments:
          extender.urlPrefix: http://127.0.0.1:8888
          extender.httpTimeout: 100ms
          extender.predicateVerb: predicate
          extender.ignorable: true
          extender.managedResources:
          - nvidia.com/gpu
          - nvidia.com/gpumem
    configurations:
    - name: allocate
      arguments:
        enablePredicateErrorCache: true
)";

TEST(SchedulerConfig, ConfigMapIsReadThroughItsDataKey) {
  EXPECT_EQ(render(parse_config(kConfigMap, "configmap.yaml")),
            render(parse_config(kToml, "scheduler.toml")));
}

// A list of maps (deviceshare.GPUExclusiveRules, as Volcano's vGPU guide
// writes it) arrives item by item, each map's keys after the item number;
// a label key keeps its own dots and slash. TOML, YAML, JSON and the
// ConfigMap form alike.
TEST(SchedulerConfig, ListOfMapsArrivesAsNumberedItemsInEveryForm) {
  const Arguments want = {{"deviceshare.GPUExclusiveRules.0.app.kubernetes.io/name", "trainer"},
                          {"deviceshare.GPUExclusiveRules.1.priority", "high"},
                          {"deviceshare.GPUExclusiveRules.1.workloadType", "batch"},
                          {"deviceshare.VGPUEnable", "true"}};
  const auto toml = parse_config(R"(actions = ["allocate"]
[[tiers]]
[[tiers.plugins]]
name = "deviceshare"
[tiers.plugins.arguments]
"deviceshare.VGPUEnable" = true
"deviceshare.GPUExclusiveRules" = [{ "app.kubernetes.io/name" = "trainer" },
                                   { workloadType = "batch", priority = "high" }]
)",
                                 "s.toml");
  EXPECT_EQ(plugin(toml, 0, 0).arguments, want);
  constexpr std::string_view kYamlForm = R"(actions: allocate
tiers:
- plugins:
  - name: deviceshare
    arguments:
      deviceshare.VGPUEnable: true
      deviceshare.GPUExclusiveRules:
        - app.kubernetes.io/name: trainer
        - workloadType: batch
          priority: high
)";
  EXPECT_EQ(plugin(parse_config(kYamlForm, "s.yaml"), 0, 0).arguments, want);
  const auto json = parse_config(R"({"actions": "allocate", "tiers": [{"plugins": [
  {"name": "deviceshare", "arguments": {"deviceshare.VGPUEnable": true,
   "deviceshare.GPUExclusiveRules": [{"app.kubernetes.io/name": "trainer"},
                                     {"workloadType": "batch", "priority": "high"}]}}]}]})",
                                 "s.json");
  EXPECT_EQ(plugin(json, 0, 0).arguments, want);
  std::string config_map = "apiVersion: v1\nkind: ConfigMap\ndata:\n  volcano-scheduler.conf: |\n";
  for (size_t at = 0; at < kYamlForm.size();) {
    const size_t end = kYamlForm.find('\n', at);
    config_map += "    " + std::string(kYamlForm.substr(at, end - at + 1));
    at = end + 1;
  }
  EXPECT_EQ(plugin(parse_config(config_map, "configmap.yaml"), 0, 0).arguments, want);
}

TEST(SchedulerConfig, ConfigMapErrorsPointIntoTheFile) {
  const std::string text = R"(apiVersion: v1
kind: ConfigMap
data:
  volcano-scheduler.conf: |
    actions: "enqueue, allocate"
    tiers:
    - plugins:
      - name: gang
        enableJobOrdr: false
)";
  const std::string msg = error_of(text, "cm.yaml");
  EXPECT_TRUE(has(msg, "cm.yaml: line 9, column 9 (in data[volcano-scheduler.conf])")) << msg;
  EXPECT_TRUE(has(msg, "tiers[0].plugins[0].enableJobOrdr"));
}

TEST(SchedulerConfig, JsonConfigMapNamesTheLineOfItsText) {
  const std::string good =
      R"({"kind": "ConfigMap", "data": {"volcano-scheduler.conf": "actions: \"enqueue, allocate\"\ntiers:\n- plugins:\n  - name: gang\n"}})";
  const auto c = parse_config(good, "cm.json");
  EXPECT_EQ(c.actions, (std::vector<std::string>{"enqueue", "allocate"}));
  EXPECT_EQ(plugin(c, 0, 0).name, "gang");

  const std::string bad =
      R"({"kind": "ConfigMap", "data": {"volcano-scheduler.conf": "actions: allocate\ntiers:\n- plugins:\n  - enableJobOrder: false\n"}})";
  const std::string msg = error_of(bad, "cm.json");
  EXPECT_TRUE(has(msg, "cm.json: data[volcano-scheduler.conf], line 4"));
  EXPECT_TRUE(has(msg, "tiers[0].plugins[0]: has no name"));
}

TEST(SchedulerConfig, ConfigMapMayCarryToml) {
  const auto c = parse_config(R"(kind: ConfigMap
data:
  scheduler.toml: |
    actions = ["allocate"]
    [[tiers]]
    plugins = [{ name = "gang" }]
)",
                              "cm.yaml");
  EXPECT_EQ(c.actions, (std::vector<std::string>{"allocate"}));
  EXPECT_EQ(plugin(c, 0, 0).name, "gang");
}

TEST(SchedulerConfig, ConfigMapMustHoldExactlyOneConfig) {
  std::string msg = error_of(R"(kind: ConfigMap
data:
  volcano-scheduler.conf: "actions: allocate"
  other.conf: "actions: enqueue"
)",
                             "cm.yaml");
  EXPECT_TRUE(has(msg, "cm.yaml: line 2"));
  EXPECT_TRUE(has(msg, "data: holds 2 keys (volcano-scheduler.conf, other.conf)"));

  msg = error_of("kind: ConfigMap\ndata: {}\n", "cm.yaml");
  EXPECT_TRUE(has(msg, "cm.yaml: line 2"));
  EXPECT_TRUE(has(msg, "holds no config"));

  msg = error_of("kind: Deployment\ndata:\n  a: b\n", "cm.yaml");
  EXPECT_TRUE(has(msg, "cm.yaml: line 1"));
  EXPECT_TRUE(has(msg, "is not ConfigMap"));
}

// ===========================================================================
// schedule_period and the other scalar settings
// ===========================================================================

struct Period {
  const char* setting;  // as written after `schedule_period = ` in TOML
  int64_t ms;
};

class ValidPeriod : public ::testing::TestWithParam<Period> {};

TEST_P(ValidPeriod, ReadsAsMilliseconds) {
  const Period& p = GetParam();
  const std::string text = "actions = [\"allocate\"]\nschedule_period = " + std::string(p.setting);
  EXPECT_EQ(parse_config(text, "s.toml").schedule_period_ms, p.ms) << p.setting;
}

INSTANTIATE_TEST_SUITE_P(Forms, ValidPeriod,
                         ::testing::Values(Period{"\"500ms\"", 500}, Period{"\"2s\"", 2000},
                                           Period{"\"1m\"", 60000}, Period{"\"1h\"", 3600000},
                                           Period{"\"1.5s\"", 1500}, Period{"\"1m30s\"", 90000},
                                           Period{"\"250000us\"", 250}, Period{"1500", 1500},
                                           Period{"\" 3s \"", 3000}));

TEST(SchedulerConfig, SchedulePeriodInYamlAndDefault) {
  EXPECT_EQ(parse_config("actions: allocate\nschedule_period: 2s\n", "s.yaml").schedule_period_ms,
            2000);
  EXPECT_EQ(parse_config("actions: allocate\nschedule_period: 750\n", "s.yaml").schedule_period_ms,
            750);
  EXPECT_EQ(parse_config("actions: allocate\n", "s.yaml").schedule_period_ms, 1000);
}

class InvalidPeriod : public ::testing::TestWithParam<const char*> {};

TEST_P(InvalidPeriod, IsRefusedWithExamples) {
  const std::string text =
      "actions = [\"allocate\"]\nschedule_period = " + std::string(GetParam()) + "\n";
  const std::string msg = error_of(text, "p.toml");
  EXPECT_TRUE(has(msg, "p.toml: line 2"));
  EXPECT_TRUE(has(msg, "schedule_period: "));
  EXPECT_TRUE(has(msg, "\"500ms\""));
}

INSTANTIATE_TEST_SUITE_P(Garbage, InvalidPeriod,
                         ::testing::Values("\"0s\"", "\"-1s\"", "\"10\"", "\"1x\"", "\"s\"", "\"\"",
                                           "\"1.2.3s\"", "1.5", "0", "-5", "true", "[1]",
                                           "\"100us\""));

TEST(SchedulerConfig, FeasibleNodeSettings) {
  const auto c = parse_config(R"(actions = ["allocate"]
min_nodes_to_find = 50
min_percentage_of_nodes_to_find = 10
percentage_of_nodes_to_find = 30
)",
                              "s.toml");
  EXPECT_EQ(c.min_nodes_to_find, 50);
  EXPECT_EQ(c.min_percentage_of_nodes_to_find, 10);
  EXPECT_EQ(c.percentage_of_nodes_to_find, 30);

  const std::string msg =
      error_of("actions: allocate\npercentage_of_nodes_to_find: 101\n", "f.yaml");
  EXPECT_TRUE(has(msg, "f.yaml: line 2"));
  EXPECT_TRUE(has(msg, "percentage_of_nodes_to_find: is 101; it must be between 0 and 100"));
}

TEST(SchedulerConfig, PluginDirsMayBeOneString) {
  const auto c = parse_config("actions: allocate\nplugin_dirs: /opt/x\n", "s.yaml");
  EXPECT_EQ(c.plugin_dirs, (std::vector<fs::path>{"/opt/x"}));
}

TEST(SchedulerConfig, MetricsAreAcceptedAndIgnored) {
  const auto with = parse_config("actions: allocate\nmetrics: {type: prometheus}\n", "s.yaml");
  const auto without = parse_config("actions: allocate\n", "s.yaml");
  EXPECT_EQ(render(with), render(without));
}

// ===========================================================================
// Errors: each names the file, the place and the fix
// ===========================================================================

TEST(SchedulerConfigError, UnknownTopLevelKeySuggestsTheClosest) {
  std::string msg = error_of("actions = [\"allocate\"]\ntier = []\n", "s.toml");
  EXPECT_TRUE(has(msg, "s.toml: line 2, column 1: tier: unknown setting"));
  EXPECT_TRUE(has(msg, "did you mean \"tiers\"?"));

  msg = error_of("actions: allocate\nschedule-period: 1s\n", "s.yaml");
  EXPECT_TRUE(has(msg, "s.yaml: line 2, column 1: schedule-period: unknown setting"));
  EXPECT_TRUE(has(msg, "did you mean \"schedule_period\"?"));

  msg = error_of("actions: allocate\ncolour: blue\n", "s.yaml");
  EXPECT_TRUE(has(msg, "s.yaml: line 2"));
  EXPECT_TRUE(has(msg, "The settings are actions, tiers"));
}

TEST(SchedulerConfigError, UnknownTierKey) {
  const std::string msg =
      error_of("actions: allocate\ntiers:\n- plugin:\n  - name: gang\n", "s.yaml");
  EXPECT_TRUE(has(msg, "s.yaml: line 3"));
  EXPECT_TRUE(has(msg, "tiers[0].plugin: unknown key; did you mean \"plugins\"?"));
}

TEST(SchedulerConfigError, UnknownPluginOptionSuggestsTheClosestFlag) {
  std::string msg = error_of(R"(actions: allocate
tiers:
- plugins:
  - name: priority
- plugins:
  - name: drf
  - name: gang
    enableJobOrdr: false
)",
                             "s.yaml");
  EXPECT_TRUE(has(msg, "s.yaml: line 8, column 5: tiers[1].plugins[1].enableJobOrdr"));
  EXPECT_TRUE(has(msg, "did you mean \"enableJobOrder\"?"));

  msg = error_of(
      "actions = [\"allocate\"]\n[[tiers]]\nplugins = [{ name = \"gang\", enabledVictims = true "
      "}]\n",
      "s.toml");
  EXPECT_TRUE(has(msg, "s.toml: line 3"));
  EXPECT_TRUE(has(msg, "tiers[0].plugins[0].enabledVictims"));
  EXPECT_TRUE(has(msg, "did you mean \"enabledVictim\"?"));

  // An argument written at the plugin's level: point at `arguments`.
  msg =
      error_of("actions: allocate\ntiers:\n- plugins:\n  - name: binpack\n    binpack.weight: 1\n",
               "s.yaml");
  EXPECT_TRUE(has(msg, "s.yaml: line 5"));
  EXPECT_TRUE(has(msg, "tiers[0].plugins[0].binpack.weight: unknown plugin option"));
  EXPECT_TRUE(has(msg, "goes under arguments"));
}

TEST(SchedulerConfigError, FlagThatIsNotABoolean) {
  std::string msg = error_of(
      "actions = [\"allocate\"]\n[[tiers]]\n[[tiers.plugins]]\nname = \"gang\"\n"
      "enableJobOrder = \"false\"\n",
      "s.toml");
  EXPECT_TRUE(has(msg, "s.toml: line 5"));
  EXPECT_TRUE(has(msg, "tiers[0].plugins[0].enableJobOrder: is the text \"false\", not a boolean"));
  EXPECT_TRUE(has(msg, "enableJobOrder = true or false"));

  msg = error_of("actions: allocate\ntiers:\n- plugins:\n  - name: gang\n    enabledVictim: 1\n",
                 "s.yaml");
  EXPECT_TRUE(has(msg, "s.yaml: line 5"));
  EXPECT_TRUE(has(msg, "tiers[0].plugins[0].enabledVictim: is the number 1, not a boolean"));

  // Quoted text is a string in YAML too, as Volcano's reader sees it.
  msg = error_of(
      "actions: allocate\ntiers:\n- plugins:\n  - name: gang\n    enableJobReady: \"true\"\n",
      "s.yaml");
  EXPECT_TRUE(has(msg, "s.yaml: line 5"));
  EXPECT_TRUE(has(msg, "not a boolean"));
}

TEST(SchedulerConfigError, BothSpellingsOfOneFlag) {
  const std::string msg = error_of(
      "actions: allocate\ntiers:\n- plugins:\n  - name: gang\n    enableJobOrder: true\n"
      "    enabledJobOrder: false\n",
      "s.yaml");
  EXPECT_TRUE(has(msg, "s.yaml: line 6"));
  EXPECT_TRUE(has(msg, "tiers[0].plugins[0].enabledJobOrder: sets JobOrder again"));
  EXPECT_TRUE(has(msg, "keep one"));
}

TEST(SchedulerConfigError, EmptyActionList) {
  std::string msg = error_of("actions = []\n", "s.toml");
  EXPECT_TRUE(has(msg, "s.toml: line 1"));
  EXPECT_TRUE(has(msg, "actions: lists no action"));
  EXPECT_TRUE(has(msg, "actions = [\"enqueue\", \"allocate\"]"));

  msg = error_of("actions: \"\"\n", "s.yaml");
  EXPECT_TRUE(has(msg, "s.yaml: line 1"));
  EXPECT_TRUE(has(msg, "actions: lists no action"));
  EXPECT_TRUE(has(msg, "actions: \"enqueue, allocate\""));

  msg = error_of("tiers: []\n", "s.yaml");
  EXPECT_TRUE(has(msg, "s.yaml: line 1"));
  EXPECT_TRUE(has(msg, "actions: missing"));

  msg = error_of("", "empty.toml");
  EXPECT_TRUE(has(msg, "empty.toml"));
  EXPECT_TRUE(has(msg, "actions: missing"));

  msg = error_of("actions: \"enqueue, allocate,\"\n", "s.yaml");
  EXPECT_TRUE(has(msg, "s.yaml: line 1"));
  EXPECT_TRUE(has(msg, "action 3 is empty; remove the extra comma"));
}

TEST(SchedulerConfigError, DuplicateAction) {
  std::string msg = error_of("actions: \"enqueue, allocate, enqueue\"\n", "s.yaml");
  EXPECT_TRUE(has(msg, "s.yaml: line 1"));
  EXPECT_TRUE(has(msg, "actions: \"enqueue\" is listed twice"));

  msg = error_of("\nactions = [\"enqueue\", \"allocate\", \"allocate\"]\n", "s.toml");
  EXPECT_TRUE(has(msg, "s.toml: line 2"));
  EXPECT_TRUE(has(msg, "actions[2]: \"allocate\" is listed twice (first at actions[1])"));
}

TEST(SchedulerConfigError, PluginWithoutName) {
  std::string msg = error_of(
      "actions = [\"allocate\"]\n[[tiers]]\nplugins = [{ name = \"a\" }, { enableJobOrder = false "
      "}]\n",
      "s.toml");
  EXPECT_TRUE(has(msg, "s.toml: line 3"));
  EXPECT_TRUE(has(msg, "tiers[0].plugins[1]: has no name; add name = \"<plugin>\""));

  msg = error_of("actions: allocate\ntiers:\n- plugins:\n  - enableJobOrder: false\n", "s.yaml");
  EXPECT_TRUE(has(msg, "s.yaml: line 4"));
  EXPECT_TRUE(has(msg, "tiers[0].plugins[0]: has no name; add name: <plugin>"));

  msg = error_of("actions: allocate\ntiers:\n- plugins:\n  - name: \"\"\n", "s.yaml");
  EXPECT_TRUE(has(msg, "s.yaml: line 4"));
  EXPECT_TRUE(has(msg, "tiers[0].plugins[0].name: is the text \"\""));

  msg = error_of("actions = [\"allocate\"]\n[[tiers]]\nplugins = [\"gang\"]\n", "s.toml");
  EXPECT_TRUE(has(msg, "s.toml: line 3"));
  EXPECT_TRUE(has(msg, "tiers[0].plugins[0]: is the text \"gang\""));
  EXPECT_TRUE(has(msg, "name = \"gang\""));
}

TEST(SchedulerConfigError, SamePluginTwiceInTheTiers) {
  const std::string msg = error_of(R"(actions: allocate
tiers:
- plugins:
  - name: priority
  - name: gang
- plugins:
  - name: gang
)",
                                   "s.yaml");
  EXPECT_TRUE(has(msg, "s.yaml: line 7"));
  EXPECT_TRUE(has(msg, "tiers[1].plugins[0]: plugin \"gang\" is already at tiers[0].plugins[1]"));
}

TEST(SchedulerConfigError, TomlSyntax) {
  const std::string msg = error_of("actions = [\"allocate\"]\n[[tiers]\n", "bad.toml");
  EXPECT_TRUE(has(msg, "bad.toml: line 2"));
  EXPECT_TRUE(has(msg, "invalid TOML"));
}

TEST(SchedulerConfigError, YamlSyntax) {
  std::string msg =
      error_of("actions: allocate\ntiers:\n- plugins:\n  - name: [gang\n", "bad.yaml");
  EXPECT_TRUE(has(msg, "bad.yaml: line"));
  EXPECT_TRUE(has(msg, "invalid YAML"));

  // libfyaml places it at the plain scalar that runs into a key.
  msg = error_of("actions: allocate\n  tiers: x\n", "bad.yaml");
  EXPECT_TRUE(has(msg, "bad.yaml: line 1, column 10"));
  EXPECT_TRUE(has(msg, "invalid YAML"));

  msg = error_of("{\"actions\": \"allocate\"", "bad.json");
  EXPECT_TRUE(has(msg, "bad.json: line 1"));
  EXPECT_TRUE(has(msg, "invalid JSON"));
}

TEST(SchedulerConfigError, YamlKeyGivenTwice) {
  const std::string msg = error_of("actions: allocate\ntiers: []\nactions: enqueue\n", "s.yaml");
  EXPECT_TRUE(has(msg, "s.yaml: line 3, column 1: actions: appears twice"));
  EXPECT_TRUE(has(msg, "first at line 1"));
}

TEST(SchedulerConfigError, WrongTypes) {
  std::string msg = error_of("actions: allocate\ntiers: {plugins: []}\n", "s.yaml");
  EXPECT_TRUE(has(msg, "s.yaml: line 2"));
  EXPECT_TRUE(has(msg, "tiers: is a mapping; it must be a list"));

  msg = error_of("actions = [\"allocate\", 3]\n", "s.toml");
  EXPECT_TRUE(has(msg, "s.toml: line 1"));
  EXPECT_TRUE(has(msg, "actions[1]: is the number 3"));

  msg = error_of("- actions\n", "s.yaml");
  EXPECT_TRUE(has(msg, "s.yaml: line 1"));
  EXPECT_TRUE(has(msg, "is a list; a config is a mapping"));
}

TEST(SchedulerConfigError, TwoYamlDocuments) {
  const std::string msg = error_of("actions: allocate\n---\nactions: enqueue\n", "s.yaml");
  EXPECT_TRUE(has(msg, "s.yaml: line 3"));
  EXPECT_TRUE(has(msg, "a second YAML document"));
}

TEST(SchedulerConfigError, TomlInAYamlFileGetsAHint) {
  const std::string msg = error_of("actions = [\"allocate\"]\n", "scheduler.yaml");
  EXPECT_TRUE(has(msg, "scheduler.yaml: line 1"));
  EXPECT_TRUE(has(msg, "give it the .toml extension"));
}

// ===========================================================================
// Choosing the syntax
// ===========================================================================

TEST(SchedulerConfig, SyntaxFollowsContentWithoutAnExtension) {
  const auto toml = parse_config("# comment\n\nactions = [\"allocate\"]\n", "<stdin>");
  const auto yaml = parse_config("# comment\nactions: \"allocate\"\n", "<stdin>");
  const auto json = parse_config("{\"actions\": \"allocate\"}", "-");
  EXPECT_EQ(toml.actions, (std::vector<std::string>{"allocate"}));
  EXPECT_EQ(yaml.actions, (std::vector<std::string>{"allocate"}));
  EXPECT_EQ(json.actions, (std::vector<std::string>{"allocate"}));
  // A table header first is TOML: the message is about the missing actions, not YAML syntax.
  const std::string msg = error_of("[[tiers]]\nplugins = [{ name = \"gang\" }]\n", "conf");
  EXPECT_TRUE(has(msg, "conf: line 1, column 1: actions: missing"));
}

TEST(SchedulerConfig, ExtensionWinsOverContent) {
  // A YAML-looking line in a .toml file is read as TOML, and fails as such.
  const std::string msg = error_of("actions: allocate\n", "s.toml");
  EXPECT_TRUE(has(msg, "invalid TOML"));
  EXPECT_EQ(parse_config("actions: allocate\n", "volcano-scheduler.CONF").actions,
            (std::vector<std::string>{"allocate"}));
}

// ===========================================================================
// Files
// ===========================================================================

class ConfigFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        fs::temp_directory_path() /
        ("scoria-config-test-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
         "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  fs::path write(const std::string& name, std::string_view text) {
    const fs::path p = dir_ / name;
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }
  fs::path dir_;
};

TEST_F(ConfigFile, LoadsAndResolvesRelativePluginDirsAgainstTheConfig) {
  const fs::path p =
      write("s.toml", "actions = [\"allocate\"]\nplugin_dirs = [\"extra\", \"/abs/plugins\"]\n");
  const auto c = load_config(p);
  EXPECT_EQ(c.actions, (std::vector<std::string>{"allocate"}));
  EXPECT_EQ(c.plugin_dirs, (std::vector<fs::path>{dir_ / "extra", "/abs/plugins"}));
}

TEST_F(ConfigFile, MissingFileIsNamed) {
  const fs::path p = dir_ / "nope.toml";
  try {
    load_config(p);
    FAIL() << "loaded a missing file";
  } catch (const InputError& e) {
    EXPECT_TRUE(has(e.what(), p.string() + ": cannot open it"));
  }
}

TEST_F(ConfigFile, ErrorsNameTheFileAsGiven) {
  const fs::path p = write("bad.yaml",
                           "actions: allocate\ntiers:\n- plugins:\n  - name: gang\n"
                           "    enableJobOrder: maybe\n");
  try {
    load_config(p);
    FAIL() << "loaded a bad config";
  } catch (const InputError& e) {
    EXPECT_TRUE(
        has(e.what(), p.string() + ": line 5, column 21: tiers[0].plugins[0].enableJobOrder"));
  }
}

TEST(DefaultConfigs, TomlAndVolcanoYamlExamplesAreTheSameConfig) {
  const char* root = std::getenv("SCORIA_SOURCE_DIR");
  if (root == nullptr || *root == '\0')
    GTEST_SKIP() << "set SCORIA_SOURCE_DIR to the source tree to check config/scheduler.toml";
  const SchedulerConfig toml = load_config(fs::path(root) / "config" / "scheduler.toml");
  const SchedulerConfig yaml =
      load_config(fs::path(root) / "config" / "examples" / "volcano-scheduler.conf.yaml");
  EXPECT_EQ(render(toml), render(yaml));
  // Volcano's default (its Helm chart's volcano-scheduler.conf).
  EXPECT_EQ(toml.actions, (std::vector<std::string>{"enqueue", "allocate", "backfill"}));
  ASSERT_EQ(toml.tiers.size(), 2u);
  const std::vector<std::vector<std::string>> names = {
      {"priority", "gang", "conformance"},
      {"overcommit", "drf", "predicates", "proportion", "nodeorder", "binpack"}};
  for (size_t t = 0; t < names.size(); ++t) {
    ASSERT_EQ(toml.tiers[t].plugins.size(), names[t].size()) << "tier " << t;
    for (size_t p = 0; p < names[t].size(); ++p)
      EXPECT_EQ(plugin(toml, t, p).name, names[t][p]) << "tier " << t << " plugin " << p;
  }
  // gang and drf take no part in choosing victims, as in Volcano's default.
  EXPECT_EQ(plugin(toml, 0, 1).flags[kPreemptable], false);
  EXPECT_EQ(plugin(toml, 1, 1).flags[kPreemptable], false);
}

}  // namespace
}  // namespace scoria::config

namespace scoria::config {
namespace {

// yaml-cpp 0.7.0, which read configs before, loops forever on a lone comma
// (jbeder/yaml-cpp#1040) and on a tag it cannot resolve (found by
// fuzz/config_fuzz.cpp), and expands aliases into copies: the config's YAML
// is read by libfyaml under the config limits.
TEST(SchedulerConfigHostile, LoneCommaIsRefusedAtOnce) {
  EXPECT_TRUE(has(error_of(",\n", "scheduler.yaml"),
                  "scheduler.yaml: line 1, column 1: invalid YAML (did not find expected node"));
  const std::string in_configmap = error_of(
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: s}\ndata:\n  volcano-scheduler.conf: "
      "\",\\n\"\n",
      "cm.yaml");
  EXPECT_TRUE(has(in_configmap, "data[volcano-scheduler.conf]")) << in_configmap;
  EXPECT_TRUE(has(in_configmap, "invalid YAML")) << in_configmap;
}

TEST(SchedulerConfigHostile, AnUnknownTagAloneIsRefusedAtOnce) {
  const std::string msg = error_of("!=usatu,s", "scheduler.yaml");
  EXPECT_TRUE(has(msg, "scheduler.yaml")) << msg;
  EXPECT_TRUE(has(msg, "a config is a mapping")) << msg;
}

TEST(SchedulerConfigHostile, AliasBombAndInvalidUtf8AreRefused) {
  std::string bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  for (char c = 'b'; c <= 'h'; ++c) {
    bomb += std::string(1, c) + ": &" + c + " [";
    for (int i = 0; i < 10; ++i) bomb += std::string(i ? ", *" : "*") + static_cast<char>(c - 1);
    bomb += "]\n";
  }
  EXPECT_TRUE(has(error_of(bomb, "scheduler.yaml"), "excessive aliasing is refused"));
  EXPECT_TRUE(has(error_of("actions: \"enqueue\xff\"\n", "scheduler.yaml"),
                  "scheduler.yaml: byte 17 (line 1, column 18) is not valid UTF-8"));
}

}  // namespace
}  // namespace scoria::config

namespace scoria::config {
namespace {

TEST(ConfigChanges, NameWhatAReloadChanges) {
  const SchedulerConfig before = parse_config(
      "actions = [\"enqueue\", \"allocate\"]\n"
      "[[tiers]]\nplugins = [{ name = \"priority\" }, { name = \"gang\" }]\n"
      "[[tiers]]\nplugins = [{ name = \"binpack\", arguments = { \"binpack.weight\" = 1 } },"
      " { name = \"drf\" }]\n",
      "before.toml");
  EXPECT_EQ(describe_changes(before, before), "nothing changed");
  const SchedulerConfig after = parse_config(
      "actions = [\"enqueue\", \"allocate\", \"backfill\"]\n"
      "[[tiers]]\nplugins = [{ name = \"priority\" }, { name = \"binpack\","
      " arguments = { \"binpack.weight\" = 10, \"binpack.cpu\" = 2 } }]\n"
      "[[tiers]]\nplugins = [{ name = \"drf\", enablePreemptable = false },"
      " { name = \"proportion\" }]\n",
      "after.toml");
  EXPECT_EQ(describe_changes(before, after),
            "actions enqueue, allocate -> enqueue, allocate, backfill; "
            "plugin binpack moved from tier 2 to tier 1; "
            "plugin binpack argument binpack.cpu = 2 added; "
            "plugin binpack argument binpack.weight 1 -> 10; "
            "plugin drf enablePreemptable true -> false; "
            "plugin proportion added (tier 2); "
            "plugin gang removed (was in tier 1)");
}

}  // namespace
}  // namespace scoria::config
