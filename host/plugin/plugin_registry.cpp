#include "plugin/plugin_registry.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <boost/dll/runtime_symbol_info.hpp>
#include <boost/dll/shared_library.hpp>
#include <cstddef>
#include <optional>

#include "log/log.h"
#include "plugin/declared_args.h"
#include "plugin/loaded_plugin.h"
#include "plugin/plugin_ctx.h"
#include "plugin/private_copy.h"

namespace scoria::plugin {

namespace fs = std::filesystem;

namespace {

// The file names a plugin called `name` is looked for under, in order.
std::array<std::string, 2> file_names_for(std::string_view name) {
  return {"scoria-" + std::string(name) + ".so", std::string(name) + ".so"};
}

std::string version(uint32_t major, uint32_t minor) {
  return std::to_string(major) + "." + std::to_string(minor);
}

// The smallest descriptor any 1.x plugin can have: everything up to and
// including on_execute, as shipped in 1.0.
constexpr size_t kMinDescriptorSize = offsetof(scoria_descriptor, on_execute) + sizeof(void*);

}  // namespace

PluginRegistry::PluginRegistry(const scoria_host_api* host) : host_(host) {}
PluginRegistry::~PluginRegistry() = default;

void PluginRegistry::scan(const std::vector<fs::path>& dirs) {
  std::vector<fs::path> files;  // sorted within each directory
  for (const auto& dir : dirs) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) {
      refusals_.push_back({dir, dir.string() + ": not a directory; check plugin_dirs"});
      continue;
    }
    if (!safe_to_load(dir)) continue;
    const size_t first = files.size();
    for (const auto& entry : fs::directory_iterator(dir, ec))
      if (entry.path().extension() == ".so") files.push_back(entry.path());
    std::sort(files.begin() + static_cast<std::ptrdiff_t>(first), files.end());
  }
  load_all(files);
}

void PluginRegistry::load_all(const std::vector<fs::path>& files) {
  std::vector<fs::path> safe;
  for (const fs::path& f : files)
    if (safe_to_load(f)) safe.push_back(f);
  std::optional<std::vector<std::optional<std::string>>> verdicts;
  if (trial_ && !safe.empty()) verdicts = trial_(safe);
  for (size_t i = 0; i < safe.size(); ++i) {
    if (verdicts && i < verdicts->size() && (*verdicts)[i])
      refuse(safe[i], *(*verdicts)[i]);
    else
      load_safe(safe[i]);
  }
}

const Refusal* PluginRegistry::refusal_of(std::string_view name) const {
  const std::array<std::string, 2> names = file_names_for(name);
  for (const Refusal& r : refusals_) {
    const std::string file = r.file.filename().string();
    if (file == names[0] || file == names[1]) return &r;
  }
  return nullptr;
}

bool PluginRegistry::refuse(const fs::path& file, const std::string& why) {
  refusals_.push_back({file, file.string() + ": " + why});
  log::write(log::kWarning, "loader", refusals_.back().message);
  return false;
}

void PluginRegistry::load_named(const std::vector<fs::path>& dirs,
                                const std::vector<std::string>& names) {
  std::vector<fs::path> usable;
  std::string searched;
  for (const auto& dir : dirs) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) {
      refusals_.push_back({dir, dir.string() + ": not a directory; check plugin_dirs"});
      continue;
    }
    if (safe_to_load(dir)) usable.push_back(dir);
    searched += (searched.empty() ? "" : ", ") + dir.string();
  }
  // Every file first, so that they are tried together.
  std::vector<std::pair<std::string, fs::path>> named;
  std::vector<fs::path> files;
  for (const auto& name : names) {
    if (find(name) != nullptr) continue;
    std::optional<fs::path> file;
    for (const auto& dir : usable) {
      for (const std::string& candidate : file_names_for(name)) {
        std::error_code ec;
        if (fs::exists(dir / candidate, ec)) {
          file = dir / candidate;
          break;
        }
      }
      if (file) break;
    }
    if (!file) {
      refusals_.push_back({name, "\"" + name + "\": no scoria-" + name + ".so or " + name +
                                     ".so in " + (searched.empty() ? "(no directory)" : searched)});
      continue;
    }
    if (std::find(files.begin(), files.end(), *file) == files.end()) files.push_back(*file);
    named.emplace_back(name, *file);
  }
  load_all(files);
  for (const auto& [name, path] : named) {
    if (find(name) != nullptr) continue;
    const fs::path& file = path;  // a lambda cannot capture a binding (clang 14)
    const auto loaded = std::find_if(plugins_.begin(), plugins_.end(),
                                     [&](const auto& p) { return p->file == file; });
    if (loaded == plugins_.end()) continue;  // refused, and said why
    refusals_.push_back({file, file.string() + " declares the plugin \"" +
                                   (*loaded)->descriptor->name + "\", not \"" + name +
                                   "\"; name the file after the plugin it holds"});
    log::write(log::kWarning, "loader", refusals_.back().message);
  }
}

namespace {

// Why `path` is unsafe to load code from, if it is. `leaf`: the file or
// directory named, not one above it.
std::optional<std::string> unsafe_because(const fs::path& path, bool leaf) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;  // loading it reports the error
  if (st.st_uid != 0 && st.st_uid != ::geteuid())
    return "owned by uid " + std::to_string(st.st_uid) + ", neither root nor this user (uid " +
           std::to_string(::geteuid()) +
           "), who could replace it with code of their own; fix: " + "chown root " + path.string();
  // Up the tree a sticky directory (/tmp) is fine: others may not rename or
  // remove what they do not own in it.
  if (!leaf && S_ISDIR(st.st_mode) && (st.st_mode & S_ISVTX) != 0) return std::nullopt;
  if ((st.st_mode & S_IWOTH) != 0)
    return "writable by other users, who could replace it with code of their own; fix: chmod "
           "o-w " +
           path.string();
  if ((st.st_mode & S_IWGRP) != 0)
    return "writable by its group, whose members could replace it with code of their own; fix: "
           "chmod g-w " +
           path.string();
  return std::nullopt;
}

}  // namespace

bool PluginRegistry::safe_to_load(const fs::path& path) {
  // The file (or directory) itself and every directory above it: any of
  // them writable by another user lets that user swap in their own code.
  std::error_code ec;
  const fs::path real = fs::weakly_canonical(fs::absolute(path, ec), ec);
  std::optional<std::string> problem;
  fs::path at = ec ? path : real;
  for (bool leaf = true;; leaf = false) {
    if (auto why = unsafe_because(at, leaf)) {
      problem = at.string() + ": " + *why;
      break;
    }
    if (!at.has_parent_path() || at.parent_path() == at) break;
    at = at.parent_path();
  }
  if (!problem) return true;
  if (allow_writable_) {
    log::write(log::kWarning, "loader", *problem + "; loaded anyway (--allow-writable-plugins)");
    return true;
  }
  refusals_.push_back({path, *problem + " (or pass --allow-writable-plugins)"});
  log::write(log::kWarning, "loader", refusals_.back().message);
  return false;
}

bool PluginRegistry::load(const fs::path& file) { return safe_to_load(file) && load_safe(file); }

bool PluginRegistry::load_safe(const fs::path& file) {
  auto refuse = [&](const std::string& why) { return this->refuse(file, why); };
  auto plugin = std::make_shared<LoadedPlugin>();
  std::string why;
  const std::shared_ptr<const PrivateCopy> copy =
      private_copies_ ? PrivateCopy::of(file, why) : nullptr;
  if (private_copies_) {
    if (!copy)
      log::write(log::kWarning, "loader",
                 file.string() + ": " + why +
                     "; loaded from the file itself, so a new build installed there takes a "
                     "restart, not a reload");
  }
  // Local symbol visibility: two plugins may define the same internal
  // symbols without binding to each other's.
  constexpr auto kMode = boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local;
  bool from_copy = false;
  try {
    if (copy) {
      try {
        plugin->library.load(boost::dll::fs::path(copy->path()), kMode);
        from_copy = true;
      } catch (const std::exception& e) {
        // A policy may forbid executing in-memory files (noexec memfds, an
        // LSM); the file itself still loads, only upgrades need a restart.
        log::write(log::kWarning, "loader",
                   file.string() + ": its in-memory copy cannot be mapped (" + e.what() +
                       "); loaded from the file itself, so a new build installed there takes "
                       "a restart, not a reload");
      }
    }
    if (!plugin->library.is_loaded())
      plugin->library.load(boost::dll::fs::path(file.string()), kMode);
  } catch (const std::exception& e) {
    return refuse(std::string("cannot be loaded (") + e.what() +
                  "); is it a shared object built for this machine?");
  }
  if (!plugin->library.has(SCORIA_ENTRY_SYMBOL))
    return refuse(std::string("no ") + SCORIA_ENTRY_SYMBOL +
                  " symbol; a Scoria plugin must export it (see sdk/include/scoria/scoria.h, "
                  "or use SCORIA_DEFINE_PLUGIN)");

  plugin->ctx = std::make_unique<scoria_plugin_ctx>();
  plugin->ctx->name = file.stem().string();
  plugin->ctx->file = file.string();
  auto entry = plugin->library.get<std::remove_pointer_t<scoria_entry_fn>>(SCORIA_ENTRY_SYMBOL);
  const scoria_descriptor* d =
      entry(SCORIA_ABI_VERSION_MAJOR, SCORIA_ABI_VERSION_MINOR, host_, plugin->ctx.get());
  if (d == nullptr)
    return refuse("returned no descriptor (the plugin refused this host; see its log lines)");

  // Versions first: they sit in the first 8 bytes of every descriptor of
  // every major, so a 2.x plugin is told it is 2.x, not that it is small.
  const std::string host_v = version(SCORIA_ABI_VERSION_MAJOR, SCORIA_ABI_VERSION_MINOR);
  const std::string plugin_v = version(d->abi_major, d->abi_minor);
  if (d->abi_major != SCORIA_ABI_VERSION_MAJOR)
    return refuse("built for ABI " + plugin_v + ", but this host provides ABI " + host_v +
                  "; rebuild the plugin against this host's SDK (major versions are not "
                  "compatible)");
  if (d->abi_minor > SCORIA_ABI_VERSION_MINOR)
    return refuse("built for ABI " + plugin_v + ", newer than this host provides ABI " + host_v +
                  "; upgrade Scoria or rebuild the plugin against this host's SDK");
  if (d->struct_size < kMinDescriptorSize)
    return refuse("descriptor too small (" + std::to_string(d->struct_size) +
                  " bytes, ABI 1.0 needs " + std::to_string(kMinDescriptorSize) +
                  "); rebuild it against the Scoria SDK");
  if (d->name == nullptr || d->name[0] == '\0') return refuse("descriptor has no name");
  if (d->kind == SCORIA_KIND_ACTION && d->on_execute == nullptr)
    return refuse("action without on_execute; an action must implement it");
  if (d->kind == SCORIA_KIND_PLUGIN && d->on_session_open == nullptr)
    return refuse("plugin without on_session_open; a plugin must implement it");
  if (d->kind != SCORIA_KIND_ACTION && d->kind != SCORIA_KIND_PLUGIN)
    return refuse("unknown kind " + std::to_string(d->kind) +
                  "; use SCORIA_KIND_ACTION or "
                  "SCORIA_KIND_PLUGIN");
  if (const auto problems = declaration_problems(*d); !problems.empty()) {
    std::string all;
    for (const auto& p : problems) all += (all.empty() ? "" : "; ") + p;
    return refuse("declares its arguments wrongly: " + all +
                  "; fix the plugin's scoria_arg_spec table and rebuild it");
  }
  if (auto other = find(d->name))
    return refuse(std::string("duplicate plugin name \"") + d->name + "\", already loaded from " +
                  other->file.string() + "; remove one of the two files or rename the plugin");

  plugin->descriptor = d;
  plugin->file = file;
  if (from_copy) plugin->sha256 = copy->sha256();
  plugin->ctx->name = d->name;
  plugins_.push_back(std::move(plugin));
  return true;
}

std::vector<PluginInfo> PluginRegistry::list() const {
  std::vector<PluginInfo> out;
  for (const auto& p : plugins_) {
    const scoria_descriptor& d = *p->descriptor;
    out.push_back({d.name, static_cast<scoria_kind>(d.kind), d.version ? d.version : "",
                   d.description ? d.description : "", d.abi_major, d.abi_minor, p->file, p->sha256,
                   declared_args(d)});
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return std::tie(a.kind, a.name) < std::tie(b.kind, b.name);
  });
  return out;
}

std::shared_ptr<LoadedPlugin> PluginRegistry::find(std::string_view name) const {
  for (const auto& p : plugins_)
    if (p->descriptor != nullptr && name == p->descriptor->name) return p;
  return nullptr;
}

std::vector<std::string> PluginRegistry::names(scoria_kind kind) const {
  std::vector<std::string> out;
  for (const auto& p : plugins_)
    if (p->descriptor->kind == static_cast<uint32_t>(kind)) out.emplace_back(p->descriptor->name);
  std::sort(out.begin(), out.end());
  return out;
}

fs::path program_path() { return fs::path(boost::dll::program_location().string()); }

fs::path default_plugin_dir() {
  return program_path().parent_path() / ".." / "lib" / "scoria" / "plugins";
}

std::vector<fs::path> default_plugin_dirs() {
  std::vector<fs::path> dirs;
  for (const fs::path& dir : {default_plugin_dir().lexically_normal(), fs::path(kLocalPluginDir)}) {
    std::error_code ec;
    if (fs::is_directory(dir, ec) && std::find(dirs.begin(), dirs.end(), dir) == dirs.end())
      dirs.push_back(dir);
  }
  return dirs;
}

}  // namespace scoria::plugin
