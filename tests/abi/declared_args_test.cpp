// Declared arguments (ABI 1.2): a config giving a plugin an argument it does
// not declare, of the wrong type or out of range is refused with the place,
// the argument, a "did you mean" and the form it takes; every problem of a
// config is reported at once; declared defaults reach the plugin; a plugin
// built before 1.2 is not checked; a wrong declaration is refused at load.
#include <scoria/scoria.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <string_view>

#include "abi/host_api.h"
#include "config/scheduler_config.h"
#include "model/error.h"
#include "plugin/plugin_registry.h"
#include "scheduler/scheduler.h"

namespace {

namespace fs = std::filesystem;
using scoria::InputError;
using scoria::config::parse_config;
using scoria::plugin::PluginRegistry;
using scoria::scheduler::Scheduler;

class DeclaredArgs : public ::testing::Test {
 protected:
  void SetUp() override {
    registry.scan({fs::path(SCORIA_ABI_FIXTURES) / "declares_args",
                   fs::path(SCORIA_ABI_FIXTURES) / "good_older_minor",
                   fs::path(SCORIA_BUILTIN_PLUGINS)});
  }

  // The config's one plugin `name` with `arguments` (TOML inline table
  // contents), after the action allocate. The arguments sit on line 4.
  static std::string config(std::string_view name, std::string_view arguments) {
    return "actions = [\"allocate\"]\n"
           "[[tiers]]\n"
           "[[tiers.plugins]]\n"
           "name = \"" +
           std::string(name) +
           "\"\n"
           "arguments = { " +
           std::string(arguments) + " }\n";
  }

  // What building a scheduler from `text` throws; empty if it does not.
  std::string refusal(const std::string& text) {
    try {
      Scheduler sched(registry, parse_config(text, "conf.toml"), 1);
    } catch (const InputError& e) {
      return e.what();
    }
    return {};
  }

  PluginRegistry registry{scoria::abi::host_api()};
};

constexpr std::string_view kPlace = "conf.toml: line 5, column ";

TEST_F(DeclaredArgs, SoundArgumentsOfEveryTypeAreAccepted) {
  EXPECT_EQ(refusal(config("declares_args",
                           "weight = 100, factor = 1.5, mode = \"thorough\", reserve = \"2\", "
                           "interval = \"1h30m\", resources = [\"cpu\", \"nvidia.com/gpu\"], "
                           "\"resources.weight.nvidia.com/gpu\" = 5, labels = { zone = \"a\" }")),
            "");
  EXPECT_EQ(refusal(config("declares_args", "resources = \"cpu, memory\"")), "");
}

TEST_F(DeclaredArgs, MistypedNameGetsDidYouMean) {
  EXPECT_EQ(refusal(config("declares_args", "weigth = 3")),
            std::string(kPlace) +
                "24: tiers[0].plugins[0].arguments[weigth]: plugin \"declares_args\" has no "
                "argument \"weigth\"; did you mean \"weight\"? (scoria plugins --describe "
                "declares_args says what each does)");
}

TEST_F(DeclaredArgs, UnknownNameWithoutNeighbourListsWhatItTakes) {
  EXPECT_EQ(refusal(config("declares_args", "TotallyMadeUpEnable = true")),
            std::string(kPlace) +
                "37: tiers[0].plugins[0].arguments[TotallyMadeUpEnable]: plugin "
                "\"declares_args\" has no argument \"TotallyMadeUpEnable\"; it takes echo, "
                "weight, factor, mode, reserve, interval, resources, resources.weight.*, labels "
                "(scoria plugins --describe declares_args says what each does)");
}

TEST_F(DeclaredArgs, APluginOptionUnderArgumentsIsToldWhereItBelongs) {
  EXPECT_EQ(refusal(config("declares_args", "enableHierarchy = true")),
            std::string(kPlace) +
                "33: tiers[0].plugins[0].arguments[enableHierarchy]: plugin \"declares_args\" "
                "has no argument \"enableHierarchy\"; \"enableHierarchy\" is a plugin option, "
                "not an argument: write it beside the plugin's name, outside arguments "
                "(scoria plugins --describe declares_args says what each does)");
}

TEST_F(DeclaredArgs, WrongTypeNamesTheFormAndTheDefault) {
  EXPECT_EQ(refusal(config("declares_args", "weight = \"banana\"")),
            std::string(kPlace) +
                "24: tiers[0].plugins[0].arguments[weight]: is \"banana\", not a whole number; "
                "argument \"weight\" of plugin \"declares_args\" takes a whole number from 0 to "
                "100: write one, or remove the argument to use its default (7)");
  EXPECT_EQ(refusal(config("declares_args", "echo = \"yes\"")),
            std::string(kPlace) +
                "22: tiers[0].plugins[0].arguments[echo]: is \"yes\", not true or false; "
                "argument \"echo\" of plugin \"declares_args\" takes true or false: write one, "
                "or remove the argument to use its default (false)");
  EXPECT_EQ(refusal(config("declares_args", "interval = \"5 minutes\"")),
            std::string(kPlace) +
                "26: tiers[0].plugins[0].arguments[interval]: is \"5 minutes\", not a duration; "
                "argument \"interval\" of plugin \"declares_args\" takes a duration such as 30s, "
                "5m or 1h30m of at least 1s: write one, or remove the argument to use its "
                "default (5m)");
  EXPECT_EQ(refusal(config("declares_args", "reserve = \"lots\"")),
            std::string(kPlace) +
                "25: tiers[0].plugins[0].arguments[reserve]: is \"lots\", not a quantity; "
                "argument \"reserve\" of plugin \"declares_args\" takes a quantity such as 500m, "
                "2 or 1.5Gi of at most 64: write one, or remove the argument to use its default "
                "(500m)");
}

TEST_F(DeclaredArgs, OutOfRangeNamesTheBound) {
  EXPECT_EQ(refusal(config("declares_args", "weight = 101")),
            std::string(kPlace) +
                "24: tiers[0].plugins[0].arguments[weight]: is \"101\", above its maximum 100; "
                "argument \"weight\" of plugin \"declares_args\" takes a whole number from 0 to "
                "100: write one, or remove the argument to use its default (7)");
  EXPECT_EQ(refusal(config("declares_args", "factor = 0.5")),
            std::string(kPlace) +
                "24: tiers[0].plugins[0].arguments[factor]: is \"0.5\", below its minimum 1; "
                "argument \"factor\" of plugin \"declares_args\" takes a number of at least 1: "
                "write one, or remove the argument to use its default (1.2)");
  EXPECT_EQ(refusal(config("declares_args", "interval = \"500ms\"")),
            std::string(kPlace) +
                "26: tiers[0].plugins[0].arguments[interval]: is \"500ms\", below its minimum "
                "1s; argument \"interval\" of plugin \"declares_args\" takes a duration such as "
                "30s, 5m or 1h30m of at least 1s: write one, or remove the argument to use its "
                "default (5m)");
  EXPECT_EQ(refusal(config("declares_args", "\"resources.weight.cpu\" = -1")),
            std::string(kPlace) +
                "40: tiers[0].plugins[0].arguments[resources.weight.cpu]: is \"-1\", below its "
                "minimum 0; argument \"resources.weight.*\" of plugin \"declares_args\" takes a "
                "whole number of at least 0: write one, or remove the argument");
}

TEST_F(DeclaredArgs, ValuesOutsideTheAllowedSetAreRefused) {
  EXPECT_EQ(refusal(config("declares_args", "mode = \"slow\"")),
            std::string(kPlace) +
                "22: tiers[0].plugins[0].arguments[mode]: is \"slow\", not one of the values it "
                "takes; argument \"mode\" of plugin \"declares_args\" takes one of fast, "
                "thorough: write one, or remove the argument to use its default (fast)");
  EXPECT_EQ(refusal(config("declares_args", "resources = [\"cpu\", \"gpu\"]")),
            std::string(kPlace) +
                "35: tiers[0].plugins[0].arguments[resources.1]: is \"gpu\", not one of the "
                "values it takes; argument \"resources\" of plugin \"declares_args\" takes a list "
                "of cpu, memory, nvidia.com/gpu (or its items in one text, separated by commas): "
                "write one, or remove the argument");
  EXPECT_EQ(refusal(config("declares_args", "resources = \"cpu, gpu\"")),
            std::string(kPlace) +
                "27: tiers[0].plugins[0].arguments[resources]: is \"cpu, gpu\", whose item "
                "\"gpu\" is not one of the values it takes; argument \"resources\" of plugin "
                "\"declares_args\" takes a list of cpu, memory, nvidia.com/gpu (or its items in "
                "one text, separated by commas): write one, or remove the argument");
}

TEST_F(DeclaredArgs, DeclaredDefaultsReachThePlugin) {
  // echo makes on_create refuse with what it read.
  EXPECT_NE(refusal(config("declares_args", "echo = true"))
                .find("refused its configuration: weight=7 factor=1.2 mode=fast reserve=500m "
                      "interval=5m args=6;"),
            std::string::npos);
  EXPECT_NE(refusal(config("declares_args", "echo = true, weight = 3, mode = \"thorough\""))
                .find("refused its configuration: weight=3 factor=1.2 mode=thorough reserve=500m "
                      "interval=5m args=6;"),
            std::string::npos);
}

TEST_F(DeclaredArgs, EveryProblemOfAConfigIsReportedAtOnce) {
  const std::string text =
      "actions = [\"allocate\", \"backfil\"]\n"
      "[[tiers]]\n"
      "plugins = [{ name = \"gnag\" },\n"
      "           { name = \"declares_args\", arguments = { weight = -3, mood = \"fast\" } }]\n";
  const std::string msg = refusal(text);
  // One line per problem, in config order; the lists of what is available
  // end each unknown name's line.
  const auto line = [&](std::string_view part) { return msg.find(part) != std::string::npos; };
  EXPECT_TRUE(msg.starts_with("4 problems in the config:\n")) << msg;
  EXPECT_TRUE(
      line("\n  conf.toml: line 1, column 24: actions[1]: unknown action \"backfil\"; "
           "did you mean \"backfill\"? Available actions: allocate, "))
      << msg;
  EXPECT_TRUE(
      line("\n  conf.toml: line 3, column 12: tiers[0].plugins[0]: unknown plugin \"gnag\"; "
           "did you mean \"gang\"? Available plugins: binpack, "))
      << msg;
  EXPECT_TRUE(
      line("\n  conf.toml: line 4, column 72: tiers[0].plugins[1].arguments[mood]: plugin "
           "\"declares_args\" has no argument \"mood\"; did you mean \"mode\"?"))
      << msg;
  EXPECT_TRUE(
      line("\n  conf.toml: line 4, column 61: tiers[0].plugins[1].arguments[weight]: is "
           "\"-3\", below its minimum 0;"))
      << msg;
}

TEST_F(DeclaredArgs, PluginsBuiltBefore12AreNotChecked) {
  EXPECT_EQ(refusal(config("good_older_minor", "anything = \"goes\", weight = \"banana\"")), "");
}

TEST(DeclaredArgsLoader, AWrongDeclarationIsRefusedAtLoad) {
  PluginRegistry registry{scoria::abi::host_api()};
  registry.scan({fs::path(SCORIA_ABI_FIXTURES) / "bad_declaration"});
  EXPECT_TRUE(registry.list().empty());
  ASSERT_EQ(registry.refusals().size(), 1u);
  const std::string& msg = registry.refusals().front().message;
  EXPECT_NE(msg.find("declares its arguments wrongly: argument 2 (\"weight\") is declared twice; "
                     "fix the plugin's scoria_arg_spec table and rebuild it"),
            std::string::npos)
      << msg;
}

}  // namespace
