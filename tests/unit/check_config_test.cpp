// `scoria check-config` refuses a config whose plugin argument is not a finite
// number with exit code 2 and the reader's one-line message.
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

}  // namespace
}  // namespace scoria
