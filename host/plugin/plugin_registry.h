// Discovers plugin shared objects, checks their descriptors and registers
// them by name. The registry of loaded plugins is the host's one piece of
// process-wide state; everything else hangs off a session.
#pragma once

#include <scoria/scoria.h>

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "plugin/declared_args.h"

namespace scoria::plugin {

/// One loaded shared object. Shared by every instance it created, so the
/// library stays mapped until the last instance is gone.
class LoadedPlugin;

/// What `scoria plugins` prints for one loaded object.
struct PluginInfo {
  std::string name;
  scoria_kind kind;
  std::string version;
  std::string description;
  uint32_t abi_major;
  uint32_t abi_minor;
  std::filesystem::path file;
  std::string sha256;  // of the bytes loaded, when loaded from a private copy
  /// What it declares it takes (ABI 1.2); nullopt when it declares nothing.
  std::optional<std::vector<ArgSpec>> arguments;
};

/// A file the loader refused, with the message saying why and what to do.
struct Refusal {
  std::filesystem::path file;
  std::string message;
};

class PluginRegistry {
 public:
  /// `host` is the service table every plugin it loads receives (static
  /// storage: abi::host_api(), above this layer).
  explicit PluginRegistry(const scoria_host_api* host);
  ~PluginRegistry();
  PluginRegistry(const PluginRegistry&) = delete;
  PluginRegistry& operator=(const PluginRegistry&) = delete;

  /// Loads every *.so in each directory (sorted by file name, directories in
  /// the given order). Files that fail are recorded as refusals; a later
  /// file with a name already registered is refused as a duplicate.
  void scan(const std::vector<std::filesystem::path>& dirs);

  /// Loads, for each name, the first scoria-NAME.so (or NAME.so) found in
  /// `dirs`, in order: nothing else in the directories runs. A name with no
  /// file, or a file declaring another name, is recorded as a refusal.
  void load_named(const std::vector<std::filesystem::path>& dirs,
                  const std::vector<std::string>& names);

  /// Whether files and directories that other users may write are loaded
  /// (with a warning) instead of refused. Off by default: such a file could
  /// be replaced by anyone's code.
  void set_allow_writable(bool allow) { allow_writable_ = allow; }

  /// Tries the files scan() and load_named() are about to load elsewhere
  /// first (plugin/trial_load.h): for each file, nothing if it may be
  /// loaded, else the message it is refused with; nullopt if the trial
  /// could not be run (the files are then loaded without one).
  using Trial = std::function<std::optional<std::vector<std::optional<std::string>>>(
      const std::vector<std::filesystem::path>&)>;
  void set_trial(Trial trial) { trial_ = std::move(trial); }

  /// Loads each file from a private copy of its bytes (plugin/private_copy.h)
  /// rather than from the file itself: what a long-running service does, so
  /// that a reload picks up a new build installed at the same path and an
  /// overwrite of an installed file cannot crash it. Where no copy can be
  /// made, the file itself is loaded, with a warning.
  void set_private_copies(bool on) { private_copies_ = on; }

  /// Loads one file, without a trial. Returns false (and records a
  /// refusal) if refused.
  bool load(const std::filesystem::path& file);

  const std::vector<Refusal>& refusals() const { return refusals_; }
  /// The refusal of the file named for the plugin `name` (scoria-NAME.so or
  /// NAME.so, as load_named looks for it), or nullptr.
  const Refusal* refusal_of(std::string_view name) const;
  std::vector<PluginInfo> list() const;

  /// The plugin registered as `name`, or nullptr.
  std::shared_ptr<LoadedPlugin> find(std::string_view name) const;

  /// Names of loaded objects of `kind`, sorted (for "available: ..." messages).
  std::vector<std::string> names(scoria_kind kind) const;

 private:
  const scoria_host_api* host_;
  std::vector<std::shared_ptr<LoadedPlugin>> plugins_;
  std::vector<Refusal> refusals_;
  bool allow_writable_ = false;
  bool private_copies_ = false;
  Trial trial_;

  /// True if `path` may be used; records a refusal (or logs a warning when
  /// allowed) if anyone but root and this user could replace it.
  bool safe_to_load(const std::filesystem::path& path);
  /// Loads those of `files` that are safe to load, after the trial if one
  /// is set.
  void load_all(const std::vector<std::filesystem::path>& files);
  /// Records `why` as the refusal of `file`; false.
  bool refuse(const std::filesystem::path& file, const std::string& why);
  /// load() once the file is known safe to load.
  bool load_safe(const std::filesystem::path& file);
};

/// The running executable (what the built-in directory is found from, and
/// what a trial process runs again). Throws if the system cannot say.
std::filesystem::path program_path();

/// The directory of built-in plugins next to the running executable
/// (<exe>/../lib/scoria/plugins), used when no directory is configured.
std::filesystem::path default_plugin_dir();

/// Where third-party plugins are installed by default, searched after the
/// built-in directory (outside /usr, which belongs to the package manager,
/// and readable by the hardened systemd unit).
inline constexpr const char* kLocalPluginDir = "/usr/local/lib/scoria/plugins";

/// The directories searched after those configured: the built-in one, then
/// kLocalPluginDir; those that exist.
std::vector<std::filesystem::path> default_plugin_dirs();

}  // namespace scoria::plugin
