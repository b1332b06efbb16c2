// Runs every scenario folder through `scoria simulate --output json` and
// compares the result with the folder's expected.json.
//
// Comparison rules (so a scenario states exactly what it means):
//   binds, pipelined, evictions: compared whole — an extra bind fails;
//   claims, ungated: compared whole, none when the scenario lists none;
//   podgroups, queues: each entry listed must match; fields listed in an
//     entry must be equal, except "unschedulable", which must be contained
//     in the actual message;
//   metrics, time (runs over simulated time): every member listed must be
//     in the output with the value given, recursively (objects are
//     matched member by member, anything else whole);
//   exit_code (default 0) and stderr_contains: for bad-input scenarios;
//   stderr: all of standard error, the scenario's folder left out of the
//     paths it names (cluster.yaml: document 2 ...).
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> scenarios() {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(SCORIA_SCENARIO_DIR))
    if (e.is_directory() && fs::exists(e.path() / "expected.json"))
      out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

struct SimResult {
  int exit_code = -1;
  std::string out, err;
};

SimResult simulate(const fs::path& dir, const std::string& flags = "") {
  fs::path conf =
      fs::exists(dir / "scheduler.toml") ? dir / "scheduler.toml" : dir / "scheduler.yaml";
  std::string extra = fs::exists(dir / "args") ? read(dir / "args") : "";
  for (char& c : extra)
    if (c == '\n') c = ' ';
  fs::path err = fs::temp_directory_path() / ("scoria-scenario-" + dir.filename().string() +
                                              (flags.empty() ? "" : "-2") + ".err");
  // In UTC, so that what is judged in local time (tdm's daily windows) is the
  // same on every machine.
  std::string cmd = std::string("TZ=UTC '") + SCORIA_BINARY + "' simulate --output json " + flags +
                    " --config '" + conf.string() + "' " + extra + " '" +
                    (dir / "cluster.yaml").string() + "' 2>'" + err.string() + "'";
  SimResult r;
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  int status = pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.err = read(err);
  fs::remove(err);
  return r;
}

void expect_entries(const json& expected, const json& actual, const std::string& what) {
  for (const auto& [key, want] : expected.items()) {
    ASSERT_TRUE(actual.contains(key))
        << what << " has no entry " << key << "\nactual: " << actual.dump(2);
    for (const auto& [field, value] : want.items()) {
      ASSERT_TRUE(actual[key].contains(field))
          << what << " " << key << " has no " << field << "\nactual: " << actual[key].dump(2);
      if (field == "unschedulable") {
        EXPECT_NE(actual[key][field].get<std::string>().find(value.get<std::string>()),
                  std::string::npos)
            << what << " " << key << ": message\n  " << actual[key][field] << "\nlacks\n  "
            << value;
      } else {
        EXPECT_EQ(actual[key][field], value) << what << " " << key << " " << field;
      }
    }
  }
}

void expect_subset(const json& expected, const json& actual, const std::string& path) {
  if (!expected.is_object()) {
    EXPECT_EQ(actual, expected) << path << " differs";
    return;
  }
  ASSERT_TRUE(actual.is_object()) << path << " is not an object: " << actual.dump();
  for (const auto& [key, want] : expected.items()) {
    ASSERT_TRUE(actual.contains(key))
        << path << " has no " << key << "\nactual: " << actual.dump(2);
    expect_subset(want, actual[key], path + "." + key);
  }
}

class Scenario : public testing::TestWithParam<std::string> {};

TEST_P(Scenario, MatchesExpected) {
  const fs::path dir = fs::path(SCORIA_SCENARIO_DIR) / GetParam();
  const json expected = json::parse(read(dir / "expected.json"));
  const SimResult run = simulate(dir);
  ASSERT_EQ(run.exit_code, expected.value("exit_code", 0)) << "stderr:\n" << run.err;
  if (expected.contains("stderr_contains")) {
    EXPECT_NE(run.err.find(expected["stderr_contains"].get<std::string>()), std::string::npos)
        << "stderr:\n"
        << run.err;
  }
  if (expected.contains("stderr")) {
    std::string err = run.err;
    const std::string folder = dir.string() + "/";
    for (size_t at; (at = err.find(folder)) != std::string::npos;) err.erase(at, folder.size());
    EXPECT_EQ(err, expected["stderr"].get<std::string>());
  }
  if (run.exit_code != 0) return;
  const json actual = json::parse(run.out);
  for (const char* whole :
       {"binds", "pipelined", "evictions", "explanation", "bind_annotations", "volumes"}) {
    if (expected.contains(whole)) {
      EXPECT_EQ(actual.at(whole), expected[whole]) << whole << " differ";
    }
  }
  // Queue-admission gates lifted: none unless the scenario lists them.
  EXPECT_EQ(actual.value("ungated", json::array()), expected.value("ungated", json::array()))
      << "ungated pods differ";
  // ResourceClaims allocated: none unless the scenario lists them.
  EXPECT_EQ(actual.value("claims", json::object()), expected.value("claims", json::object()))
      << "claims differ";
  // Where the source test checks only how many pods bind (Volcano's
  // MinimalBindCheck), not where.
  if (expected.contains("bind_count")) {
    EXPECT_EQ(actual.at("binds").size(), expected["bind_count"].get<size_t>())
        << "binds: " << actual.at("binds").dump();
  }
  if (expected.contains("podgroups")) {
    expect_entries(expected["podgroups"], actual["podgroups"], "podgroup");
  }
  if (expected.contains("queues")) {
    expect_entries(expected["queues"], actual["queues"], "queue");
  }
  for (const char* subset : {"metrics", "time"}) {
    if (expected.contains(subset)) {
      ASSERT_TRUE(actual.contains(subset)) << "no " << subset << " in the output";
      expect_subset(expected[subset], actual[subset], subset);
    }
  }
  if (expected.contains("cycles")) {
    EXPECT_EQ(actual["cycles"], expected["cycles"]);
  }
}

// The differential half of the equivalence cache's promise: with the cache
// (the default) and without it (--no-cache, the plain path) every scenario
// prints the same bytes, decisions and messages alike.
TEST_P(Scenario, SameOutputWithoutTheEquivalenceCache) {
  const fs::path dir = fs::path(SCORIA_SCENARIO_DIR) / GetParam();
  const SimResult cached = simulate(dir);
  const SimResult plain = simulate(dir, "--no-cache");
  ASSERT_EQ(cached.exit_code, plain.exit_code) << "plain stderr:\n" << plain.err;
  EXPECT_EQ(cached.out, plain.out);
}

INSTANTIATE_TEST_SUITE_P(All, Scenario, testing::ValuesIn(scenarios()),
                         [](const testing::TestParamInfo<std::string>& param) {
                           std::string name = param.param;
                           for (char& c : name)
                             if (!isalnum(static_cast<unsigned char>(c))) c = '_';
                           return name;
                         });

}  // namespace
