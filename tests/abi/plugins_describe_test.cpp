// `scoria plugins --describe NAME`: what a plugin takes, as a table and as
// JSON; what a plugin built before declared arguments is told; the listing's
// description column.
#include <scoria/scoria.h>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "cli/commands.h"

namespace {

// The ABI the fixture was built for: this SDK's.
const std::string kAbi =
    std::to_string(SCORIA_ABI_VERSION_MAJOR) + "." + std::to_string(SCORIA_ABI_VERSION_MINOR);

struct Output {
  int status;
  std::string out, err;
};

Output plugins(std::vector<std::string_view> args) {
  const std::string dir = std::string(SCORIA_ABI_FIXTURES) + "/declares_args";
  const std::string old = std::string(SCORIA_ABI_FIXTURES) + "/good_older_minor";
  std::vector<std::string_view> all = {"--plugin-dir", dir, "--plugin-dir", old};
  all.insert(all.end(), args.begin(), args.end());
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  const int status = scoria::cli::plugins(all);
  std::fflush(stdout);
  Output r{status, testing::internal::GetCapturedStdout(), testing::internal::GetCapturedStderr()};
  return r;
}

TEST(PluginsDescribe, TableListsEveryArgumentWithTypeDefaultFormAndHelp) {
  const Output r = plugins({"--describe", "declares_args"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(r.out.starts_with("declares_args (plugin 1.0.0, ABI " + kAbi +
                                ")\n"
                                "  ABI fixture: declares one argument of every type\n"))
      << r.out;
  const std::string table =
      "ARGUMENT            TYPE      DEFAULT  TAKES\n"
      "echo                bool      false    true or false\n"
      "    refuse, showing what was read\n"
      "weight              int       7        a whole number from 0 to 100\n"
      "    how much the score counts\n"
      "factor              float     1.2      a number of at least 1\n"
      "    overcommit factor\n"
      "mode                string    fast     one of fast, thorough\n"
      "    how hard to look\n"
      "reserve             quantity  500m     a quantity such as 500m, 2 or 1.5Gi of at most 64\n"
      "    cpu kept back\n"
      "interval            duration  5m       a duration such as 30s, 5m or 1h30m of at least 1s\n"
      "    how often\n"
      "resources           list      -        a list of cpu, memory, nvidia.com/gpu (or its items "
      "in one text, separated by commas)\n"
      "    resources to weigh\n"
      "resources.weight.*  int       -        a whole number of at least 0\n"
      "    weight per resource\n"
      "labels              map       -        a map of keys to values\n"
      "    labels to prefer\n";
  EXPECT_NE(r.out.find(table), std::string::npos) << r.out;
}

TEST(PluginsDescribe, JsonCarriesTheSameForTools) {
  const Output r = plugins({"--describe", "declares_args", "--output", "json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["name"], "declares_args");
  EXPECT_EQ(j["kind"], "plugin");
  EXPECT_EQ(j["abi"], kAbi);
  EXPECT_EQ(j["arguments_declared"], true);
  ASSERT_EQ(j["arguments"].size(), 9u);
  const auto& weight = j["arguments"][1];
  EXPECT_EQ(weight["name"], "weight");
  EXPECT_EQ(weight["type"], "int");
  EXPECT_EQ(weight["default"], "7");
  EXPECT_EQ(weight["min"], 0.0);
  EXPECT_EQ(weight["max"], 100.0);
  EXPECT_EQ(j["arguments"][3]["allowed"], nlohmann::json({"fast", "thorough"}));
  EXPECT_TRUE(j["arguments"][6]["default"].is_null());
}

TEST(PluginsDescribe, APluginBuiltBefore12IsSaidToBeUnchecked) {
  const Output r = plugins({"--describe", "good_older_minor"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("It does not declare its arguments (built for ABI 1.0, or without "
                       "SCORIA_FLAG_DECLARES_ARGS):\nthe host passes whatever the config gives "
                       "it, unchecked.\n"),
            std::string::npos)
      << r.out;
}

TEST(PluginsDescribe, AnUnknownNameExitsTwoListingWhatWasFound) {
  const Output r = plugins({"--describe", "gnag"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("scoria plugins: no action or plugin \"gnag\" in the plugin directories; "
                       "found: "),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("declares_args"), std::string::npos) << r.err;
}

TEST(PluginsList, ShowsEachDescription) {
  const Output r = plugins({});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("DESCRIPTION\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" ABI fixture: declares one argument of every type\n"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find(" ABI fixture: built for ABI 1.0, must load\n"), std::string::npos) << r.out;
}

}  // namespace
