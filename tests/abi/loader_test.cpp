// The loader against a folder of deliberately broken plugins (fixtures/).
// Each case directory holds one mistake; the registry must refuse it with a
// message that names the file, what is wrong and what to do. The fixtures
// that are sound as far as loading goes must load.
#include "abi/host_api.h"
#include "plugin/plugin_registry.h"

#include <scoria/scoria.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "config/scheduler_config.h"
#include "model/error.h"
#include "plugin/plugin_instance.h"

namespace {

namespace fs = std::filesystem;
using scoria::plugin::PluginRegistry;
using scoria::plugin::Refusal;
using Names = std::vector<std::string>;

fs::path case_dir(std::string_view name) { return fs::path(SCORIA_ABI_FIXTURES) / name; }

fs::path fixture(std::string_view case_name, std::string_view file_name) {
  return case_dir(case_name) / file_name;
}

std::string version(unsigned major, unsigned minor) {
  return std::to_string(major) + "." + std::to_string(minor);
}

const std::string kHostVersion = version(SCORIA_ABI_VERSION_MAJOR, SCORIA_ABI_VERSION_MINOR);

::testing::AssertionResult Contains(std::string_view text, std::string_view part) {
  if (text.find(part) != std::string_view::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "\"" << text << "\" lacks \"" << part << "\"";
}

class Loader : public ::testing::Test {
 protected:
  // Scans one case directory that must load nothing and refuse exactly
  // `file_name`; returns the refusal's message (empty if it did not).
  std::string sole_refusal(std::string_view case_name, std::string_view file_name) {
    const fs::path file = fixture(case_name, file_name);
    registry.scan({case_dir(case_name)});
    EXPECT_TRUE(registry.list().empty());
    EXPECT_EQ(registry.find(case_name), nullptr);
    if (registry.refusals().size() != 1) {
      ADD_FAILURE() << registry.refusals().size() << " refusals in " << case_name
                    << ", expected exactly one";
      return {};
    }
    const Refusal& refusal = registry.refusals().front();
    EXPECT_EQ(refusal.file, file);
    EXPECT_TRUE(Contains(refusal.message, file.string()));
    return refusal.message;
  }

  PluginRegistry registry{scoria::abi::host_api()};
};

TEST_F(Loader, LoadsPluginBuiltForAnOlderOrEqualMinor) {
  registry.scan({case_dir("good_older_minor")});
  EXPECT_TRUE(registry.refusals().empty());
  EXPECT_NE(registry.find("good_older_minor"), nullptr);
  EXPECT_EQ(registry.find("no_such_plugin"), nullptr);
  EXPECT_EQ(registry.names(SCORIA_KIND_PLUGIN), Names{"good_older_minor"});
  EXPECT_TRUE(registry.names(SCORIA_KIND_ACTION).empty());
}

TEST_F(Loader, ListReportsNameKindVersionAbiAndFile) {
  registry.scan({case_dir("good_older_minor")});
  const auto list = registry.list();
  ASSERT_EQ(list.size(), 1u);
  const auto& info = list.front();
  EXPECT_EQ(info.name, "good_older_minor");
  EXPECT_EQ(info.kind, SCORIA_KIND_PLUGIN);
  EXPECT_EQ(info.version, "0.3.1");
  EXPECT_EQ(info.description, "ABI fixture: built for ABI 1.0, must load");
  EXPECT_EQ(info.abi_major, 1u);
  EXPECT_EQ(info.abi_minor, 0u);
  EXPECT_EQ(info.file, fixture("good_older_minor", "good_older_minor.so"));
}

TEST_F(Loader, LoadOfOneFileSaysWhetherItWasAccepted) {
  EXPECT_TRUE(registry.load(fixture("good_older_minor", "good_older_minor.so")));
  EXPECT_FALSE(registry.load(fixture("wrong_major", "wrong_major.so")));
  EXPECT_EQ(registry.names(SCORIA_KIND_PLUGIN), Names{"good_older_minor"});
  ASSERT_EQ(registry.refusals().size(), 1u);
  EXPECT_EQ(registry.refusals().front().file, fixture("wrong_major", "wrong_major.so"));
}

TEST_F(Loader, RefusesNewerMinorNamingBothVersionsAndTheFix) {
  const std::string message = sole_refusal("newer_minor", "newer_minor.so");
  EXPECT_TRUE(Contains(
      message, "built for ABI " + version(SCORIA_ABI_VERSION_MAJOR, SCORIA_ABI_VERSION_MINOR + 1)));
  EXPECT_TRUE(Contains(message, "this host provides ABI " + kHostVersion));
  EXPECT_TRUE(Contains(message, "rebuild"));
  EXPECT_TRUE(Contains(message, "upgrade"));
}

TEST_F(Loader, RefusesOtherMajorNamingBothVersions) {
  const std::string message = sole_refusal("wrong_major", "wrong_major.so");
  EXPECT_TRUE(Contains(message, "built for ABI 2.0"));
  EXPECT_TRUE(Contains(message, "this host provides ABI " + kHostVersion));
  EXPECT_TRUE(Contains(message, "rebuild"));
}

TEST_F(Loader, RefusesObjectWithoutEntrySymbol) {
  const std::string message = sole_refusal("no_entry", "no_entry.so");
  EXPECT_TRUE(Contains(message, "no scoria_plugin_entry symbol"));
}

TEST_F(Loader, RefusesEntryThatReturnsNoDescriptor) {
  const std::string message = sole_refusal("entry_returns_null", "entry_returns_null.so");
  EXPECT_TRUE(Contains(message, "returned no descriptor"));
}

TEST_F(Loader, RefusesDescriptorSmallerThanAbi10) {
  const std::string message = sole_refusal("bad_struct_size", "bad_struct_size.so");
  EXPECT_TRUE(Contains(message, "descriptor too small"));
}

TEST_F(Loader, RefusesActionWithoutOnExecute) {
  const std::string message = sole_refusal("missing_on_execute", "missing_on_execute.so");
  EXPECT_TRUE(Contains(message, "without on_execute"));
}

TEST_F(Loader, RefusesPluginWithoutOnSessionOpen) {
  const std::string message = sole_refusal("missing_on_session_open", "missing_on_session_open.so");
  EXPECT_TRUE(Contains(message, "without on_session_open"));
}

TEST_F(Loader, RefusesFileThatIsNotASharedObject) {
  const std::string message = sole_refusal("not_an_elf", "junk.so");
  EXPECT_TRUE(Contains(message, "cannot be loaded"));
}

TEST_F(Loader, FirstFileByNameWinsADuplicateName) {
  const fs::path first = fixture("duplicate_name", "dup_a.so");
  const fs::path second = fixture("duplicate_name", "dup_b.so");
  registry.scan({case_dir("duplicate_name")});

  EXPECT_EQ(registry.names(SCORIA_KIND_ACTION), Names{"dup"});
  const auto list = registry.list();
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list.front().file, first);

  ASSERT_EQ(registry.refusals().size(), 1u);
  const Refusal& refusal = registry.refusals().front();
  EXPECT_EQ(refusal.file, second);
  EXPECT_TRUE(Contains(refusal.message, "duplicate plugin name"));
  EXPECT_TRUE(Contains(refusal.message, "\"dup\""));
  EXPECT_TRUE(Contains(refusal.message, first.string()));
  EXPECT_TRUE(Contains(refusal.message, second.string()));
}

// The registry checks descriptors only; on_create runs when a config
// instantiates the plugin, and that is where "boom" must surface.
TEST_F(Loader, LoadsPluginWhoseCreateFails) {
  registry.scan({case_dir("failing_create")});
  EXPECT_TRUE(registry.refusals().empty());
  EXPECT_EQ(registry.names(SCORIA_KIND_ACTION), Names{"failing_create"});
}

TEST_F(Loader, InstanceOfPluginWhoseCreateFailsIsRefusedWithItsMessage) {
  registry.scan({case_dir("failing_create")});
  auto plugin = registry.find("failing_create");
  ASSERT_NE(plugin, nullptr);
  try {
    scoria::plugin::PluginInstance instance(plugin, scoria::config::Arguments{});
    ADD_FAILURE() << "on_create failed, yet the instance was created";
  } catch (const scoria::InputError& e) {
    EXPECT_TRUE(Contains(e.what(), "failing_create"));
    EXPECT_TRUE(Contains(e.what(), "boom"));
  }
}

// Its hook fails at run time, which scenario tests exercise; loading it is
// this suite's part.
TEST_F(Loader, LoadsPluginWhoseHookFails) {
  registry.scan({case_dir("hook_returns_error")});
  EXPECT_TRUE(registry.refusals().empty());
  EXPECT_EQ(registry.names(SCORIA_KIND_PLUGIN), Names{"hook_returns_error"});
}

TEST_F(Loader, OneScanOfEveryCaseLoadsTheSoundAndRefusesTheRest) {
  registry.scan(
      {case_dir("bad_struct_size"), case_dir("duplicate_name"), case_dir("entry_returns_null"),
       case_dir("failing_create"), case_dir("good_older_minor"), case_dir("hook_returns_error"),
       case_dir("missing_on_execute"), case_dir("missing_on_session_open"), case_dir("newer_minor"),
       case_dir("no_entry"), case_dir("not_an_elf"), case_dir("wrong_major")});

  EXPECT_EQ(registry.names(SCORIA_KIND_ACTION), (Names{"dup", "failing_create"}));
  EXPECT_EQ(registry.names(SCORIA_KIND_PLUGIN), (Names{"good_older_minor", "hook_returns_error"}));

  std::vector<fs::path> refused;
  for (const auto& refusal : registry.refusals()) refused.push_back(refusal.file);
  std::sort(refused.begin(), refused.end());
  const std::vector<fs::path> expected = {
      fixture("bad_struct_size", "bad_struct_size.so"),
      fixture("duplicate_name", "dup_b.so"),
      fixture("entry_returns_null", "entry_returns_null.so"),
      fixture("missing_on_execute", "missing_on_execute.so"),
      fixture("missing_on_session_open", "missing_on_session_open.so"),
      fixture("newer_minor", "newer_minor.so"),
      fixture("no_entry", "no_entry.so"),
      fixture("not_an_elf", "junk.so"),
      fixture("wrong_major", "wrong_major.so"),
  };
  EXPECT_EQ(refused, expected);
}

TEST_F(Loader, MissingDirectoryIsARefusalNotACrash) {
  const fs::path missing = case_dir("no_such_case");
  registry.scan({missing});
  EXPECT_TRUE(registry.list().empty());
  ASSERT_EQ(registry.refusals().size(), 1u);
  EXPECT_EQ(registry.refusals().front().file, missing);
  EXPECT_TRUE(Contains(registry.refusals().front().message, missing.string()));
}

// A copy of a sound plugin in a fresh directory, for permission tests.
class WritablePlugin : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = fs::temp_directory_path() /
          ("scoria-writable-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
           "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir);
    fs::create_directories(dir);
    fs::permissions(dir, fs::perms::others_write, fs::perm_options::remove);
    file = dir / "good_older_minor.so";
    fs::copy_file(fixture("good_older_minor", "good_older_minor.so"), file);
    fs::permissions(file, fs::perms::others_write, fs::perm_options::add);
  }
  void TearDown() override { fs::remove_all(dir); }
  fs::path dir, file;
  PluginRegistry registry{scoria::abi::host_api()};
};

TEST_F(WritablePlugin, FileWritableByOthersIsRefusedWithTheFix) {
  registry.scan({dir});
  EXPECT_EQ(registry.find("good_older_minor"), nullptr);
  ASSERT_EQ(registry.refusals().size(), 1u);
  EXPECT_TRUE(
      Contains(registry.refusals()[0].message, file.string() + ": writable by other users"));
  EXPECT_TRUE(Contains(registry.refusals()[0].message, "chmod o-w " + file.string()));
}

TEST_F(WritablePlugin, DirectoryWritableByOthersIsRefused) {
  fs::permissions(file, fs::perms::others_write, fs::perm_options::remove);
  fs::permissions(dir, fs::perms::others_write, fs::perm_options::add);
  registry.scan({dir});
  EXPECT_EQ(registry.find("good_older_minor"), nullptr);
  ASSERT_EQ(registry.refusals().size(), 1u);
  EXPECT_EQ(registry.refusals()[0].file, dir);
}

TEST_F(WritablePlugin, ExplicitOverrideLoadsIt) {
  registry.set_allow_writable(true);
  registry.scan({dir});
  EXPECT_NE(registry.find("good_older_minor"), nullptr);
  EXPECT_TRUE(registry.refusals().empty());
}

}  // namespace
