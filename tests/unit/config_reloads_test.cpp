// Config reloads run one at a time beside the loop; one asked for while
// another loads runs after it, with the last reason asked (serve/config_reloads.h).
#include "serve/config_reloads.h"

#include <gtest/gtest.h>

#include <boost/asio/executor_work_guard.hpp>
#include <future>
#include <stdexcept>
#include <string>
#include <vector>

namespace scoria::serve {
namespace {

TEST(ConfigReloads, OneAtATimeAndTheLastAskedRunsAfter) {
  boost::asio::io_context io;
  auto guard = boost::asio::make_work_guard(io);
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::vector<std::string> loads;  // by the loading thread, one load at a time
  std::vector<std::string> adopted;
  std::vector<std::string> rejected;
  ConfigReloads reloads(
      io,
      [&]() -> LoadedConfig {
        loads.push_back("load");
        if (loads.size() == 1) {
          released.wait();
          throw std::runtime_error("no such plugin");
        }
        return {};
      },
      [&](LoadedConfig, const std::string& why) { adopted.push_back(why); },
      [&](const std::string& error) { rejected.push_back(error); });
  reloads.request("SIGHUP");
  reloads.request("the file changed");
  reloads.request("SIGHUP again");
  release.set_value();
  while (adopted.size() + rejected.size() < 2) io.run_one();
  EXPECT_EQ(rejected, std::vector<std::string>{"no such plugin"});
  EXPECT_EQ(adopted, std::vector<std::string>{"SIGHUP again"});
  EXPECT_EQ(loads.size(), 2u);
}

}  // namespace
}  // namespace scoria::serve
