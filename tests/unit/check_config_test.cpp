// `scoria check-config` refuses a config whose plugin argument is not a finite
// number, or is not one the plugin declares, not of its type or out of its
// range, with exit code 2 and one line naming the place and the fix.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "cli/commands.h"

namespace scoria {
namespace {

TEST(CheckConfig, NonFiniteArgumentExitsTwoNamingFilePluginAndArgument) {
  const char* source = std::getenv("SCORIA_SOURCE_DIR");
  ASSERT_NE(source, nullptr) << "ctest sets SCORIA_SOURCE_DIR";
  const std::string file =
      std::string(source) + "/tests/scenarios/plugin-argument-inf-refused-yaml/scheduler.yaml";
  const std::vector<std::string_view> args = {file};
  testing::internal::CaptureStderr();
  const int status = cli::check_config(args);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(status, 2);
  EXPECT_NE(err.find(file + ": line 10, column 30: "
                            "tiers[1].plugins[1].arguments[leastrequested.weight]: is \".inf\", "
                            "not a finite number; argument \"leastrequested.weight\" of plugin "
                            "\"nodeorder\" must be a finite number: write one (e.g. 1), or "
                            "remove the argument to use its default"),
            std::string::npos)
      << err;
}

// What check-config writes to stderr for the scheduler config of scenario
// `name`, and its exit code.
struct Checked {
  int status;
  std::string file, err;
};
Checked check_scenario_config(const std::string& name, const std::string& config) {
  const char* source = std::getenv("SCORIA_SOURCE_DIR");
  EXPECT_NE(source, nullptr) << "ctest sets SCORIA_SOURCE_DIR";
  Checked c{0, std::string(source ? source : "") + "/tests/scenarios/" + name + "/" + config, ""};
  const std::vector<std::string_view> args = {c.file};
  testing::internal::CaptureStderr();
  c.status = cli::check_config(args);
  c.err = testing::internal::GetCapturedStderr();
  return c;
}

// The built-in plugins declare Volcano's arguments (ABI 1.2): one they do not
// take is refused with the arguments they do, a mistyped one with a "did you
// mean", a value of the wrong type with the form it takes and its default.
TEST(CheckConfig, UnknownPredicateSwitchListsWhatPredicatesTakes) {
  const Checked c =
      check_scenario_config("plugin-argument-unknown-predicate-refused-yaml", "scheduler.yaml");
  EXPECT_EQ(c.status, 2);
  EXPECT_EQ(c.err, "scoria: " + c.file +
                       ": line 9, column 38: "
                       "tiers[1].plugins[0].arguments[predicate.TotallyMadeUpEnable]: plugin "
                       "\"predicates\" has no argument \"predicate.TotallyMadeUpEnable\"; it takes "
                       "predicate.NodeAffinityEnable, predicate.NodePortsEnable, "
                       "predicate.TaintTolerationEnable, predicate.PodAffinityEnable, "
                       "predicate.PodTopologySpreadEnable, predicate.NodeVolumeLimitsEnable, "
                       "predicate.VolumeZoneEnable, predicate.VolumeBindingEnable, "
                       "predicate.DynamicResourceAllocationEnable, predicate.CacheEnable, "
                       "volumebinding.bindTimeoutSeconds, volumebinding.weight, "
                       "volumebinding.shape, dynamicresources.filterTimeoutSeconds (scoria "
                       "plugins --describe predicates says what each does)\n");
}

TEST(CheckConfig, CapacityLevelThatIsNotANumberNamesTheFormAndDefault) {
  const Checked c =
      check_scenario_config("plugin-argument-capacity-not-a-number-refused-yaml", "scheduler.yaml");
  EXPECT_EQ(c.status, 2);
  EXPECT_EQ(c.err, "scoria: " + c.file +
                       ": line 10, column 29: tiers[1].plugins[1].arguments[ancestorReclaimLevel]: "
                       "is \"banana\", not a whole number; argument \"ancestorReclaimLevel\" of "
                       "plugin \"capacity\" takes a whole number of at least 0: write one, or "
                       "remove the argument to use its default (0)\n");
}

TEST(CheckConfig, MistypedNodeorderWeightGetsDidYouMean) {
  const Checked c =
      check_scenario_config("plugin-argument-nodeorder-typo-did-you-mean-yaml", "scheduler.yaml");
  EXPECT_EQ(c.status, 2);
  EXPECT_EQ(c.err, "scoria: " + c.file +
                       ": line 10, column 29: tiers[1].plugins[1].arguments[leastrequsted.weight]: "
                       "plugin \"nodeorder\" has no argument \"leastrequsted.weight\"; did you "
                       "mean \"leastrequested.weight\"? (scoria plugins --describe nodeorder says "
                       "what each does)\n");
}

}  // namespace
}  // namespace scoria
