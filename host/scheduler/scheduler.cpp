#include "scheduler/scheduler.h"

#include <chrono>
#include <thread>

#include "model/error.h"
#include "plugin/crash_report.h"
#include "plugin/loaded_plugin.h"
#include "plugin/plugin_ctx.h"

namespace scoria::scheduler {

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out.empty() ? "(none)" : out;
}

size_t default_threads() {
  unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : n;
}

std::shared_ptr<plugin::LoadedPlugin> resolve(const plugin::PluginRegistry& registry,
                                              const std::string& name, scoria_kind kind) {
  const char* what = kind == SCORIA_KIND_ACTION ? "action" : "plugin";
  auto found = registry.find(name);
  if (found == nullptr || found->descriptor->kind != static_cast<uint32_t>(kind))
    throw InputError(std::string("unknown ") + what + " \"" + name + "\"; available " + what +
                     "s: " + join(registry.names(kind)) +
                     ". Check the name, or add the directory holding it to plugin_dirs");
  return found;
}

// A plugin's arguments, plus Volcano's enableHierarchy option: unlike the
// other enable flags it switches no hook but a mode of the plugin (drf,
// capacity), so the plugin reads it as an argument of the same name.
config::Arguments plugin_arguments(const config::PluginOption& option) {
  config::Arguments args = option.arguments;
  if (const auto hierarchy = option.flags[static_cast<size_t>(config::Flag::Hierarchy)])
    args.try_emplace("enableHierarchy", *hierarchy ? "true" : "false");
  return args;
}

}  // namespace

Scheduler::Scheduler(const plugin::PluginRegistry& registry, config::SchedulerConfig config,
                     size_t threads)
    : config_(std::move(config)), workers_(threads == 0 ? default_threads() : threads) {
  for (const auto& name : config_.actions) {
    auto loaded = resolve(registry, name, SCORIA_KIND_ACTION);
    auto args = config_.action_arguments.find(name);
    static const config::Arguments kNone;
    actions_.push_back(
        {name, std::make_unique<plugin::PluginInstance>(
                   loaded, args == config_.action_arguments.end() ? kNone : args->second)});
  }
  for (size_t t = 0; t < config_.tiers.size(); ++t)
    for (const auto& option : config_.tiers[t].plugins) {
      auto loaded = resolve(registry, option.name, SCORIA_KIND_PLUGIN);
      plugins_.push_back(
          {t, &option, std::make_unique<plugin::PluginInstance>(loaded, plugin_arguments(option))});
    }
}

Scheduler::~Scheduler() = default;

session::Outcome Scheduler::run_once(const session::Snapshot& snapshot, SessionTimings* timings) {
  const auto start = Clock::now();
  session::Session ssn(snapshot, config_, &workers_);
  auto* handle = reinterpret_cast<scoria_session*>(&ssn);

  for (auto& p : plugins_) {
    const scoria_descriptor& d = p.instance->descriptor();
    session::PluginHooks hooks;
    hooks.name = d.name;
    hooks.option = p.option;
    hooks.ctx = p.instance->ctx();
    hooks.serial = (d.flags & SCORIA_FLAG_SERIAL_HOOKS) != 0;
    hooks.hooks.struct_size = sizeof(scoria_hooks);
    const auto t = Clock::now();
    if (tracker_) tracker_->enter(p.option->name, "on_session_open");
    const scoria_code opened = [&] {
      const plugin::InPlugin in(p.option->name.c_str(), "on_session_open");
      return d.on_session_open(p.instance->state(), handle, &hooks.hooks);
    }();
    if (timings) timings->plugins_ms.push_back({p.option->name, "OnSessionOpen", ms_since(t)});
    if (opened != SCORIA_OK) {
      plugin::count_error(hooks.ctx, "on_session_open failed; plugin skipped this session");
      continue;
    }
    ssn.add_plugin_hooks(p.tier, std::move(hooks));
  }
  if (timings) timings->open_ms = ms_since(start);

  for (auto& a : actions_) {
    const auto t = Clock::now();
    // Plugins' hooks run inside an action's on_execute, so a hang there is
    // reported as the action's.
    if (tracker_) tracker_->enter(a.name, "on_execute");
    ssn.set_action(a.name);
    const plugin::InPlugin in(a.name.c_str(), "on_execute");
    if (a.instance->descriptor().on_execute(a.instance->state(), handle) != SCORIA_OK)
      plugin::count_error(a.instance->ctx(), "on_execute failed");
    if (timings) timings->actions_ms.emplace_back(a.name, ms_since(t));
  }

  const auto close_start = Clock::now();
  for (auto& p : plugins_) {
    const scoria_descriptor& d = p.instance->descriptor();
    if (!d.on_session_close) continue;
    const auto t = Clock::now();
    if (tracker_) tracker_->enter(p.option->name, "on_session_close");
    const plugin::InPlugin in(p.option->name.c_str(), "on_session_close");
    d.on_session_close(p.instance->state(), handle);
    if (timings) timings->plugins_ms.push_back({p.option->name, "OnSessionClose", ms_since(t)});
  }
  if (tracker_) tracker_->leave();
  session::Outcome out = ssn.close();
  if (timings) {
    timings->close_ms = ms_since(close_start);
    timings->total_ms = ms_since(start);
  }
  return out;
}

std::vector<std::pair<std::string, uint64_t>> Scheduler::plugin_errors() const {
  std::vector<std::pair<std::string, uint64_t>> out;
  for (const auto& a : actions_) out.emplace_back(a.name, a.instance->ctx()->errors.load());
  for (const auto& p : plugins_) out.emplace_back(p.option->name, p.instance->ctx()->errors.load());
  return out;
}

}  // namespace scoria::scheduler
