#include "scheduler/scheduler.h"

#include <chrono>
#include <thread>
#include <utility>

#include "log/log.h"
#include "model/error.h"
#include "model/suggestion.h"
#include "plugin/crash_report.h"
#include "plugin/declared_args.h"
#include "plugin/loaded_plugin.h"
#include "plugin/plugin_ctx.h"
#include "scheduler/volcano_names.h"

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

// The plugin or action `name` of `kind`, or nullptr with a message in
// `problems`: which names exist, or that a Volcano name's library was not found.
std::shared_ptr<plugin::LoadedPlugin> resolve(const plugin::PluginRegistry& registry,
                                              const std::string& name, scoria_kind kind,
                                              const std::string& place,
                                              std::vector<std::string>& problems) {
  const char* what = kind == SCORIA_KIND_ACTION ? "action" : "plugin";
  auto found = registry.find(name);
  if (found != nullptr && found->descriptor->kind == static_cast<uint32_t>(kind)) return found;
  // Its file was found but refused (it crashed or hung in the trial, say):
  // that, not "unknown", is what to fix.
  const plugin::Refusal* refused = found == nullptr ? registry.refusal_of(name) : nullptr;
  if (refused != nullptr) {
    problems.push_back((place.empty() ? std::string() : place + ": ") + what + " \"" + name +
                       "\" cannot be used: " + refused->message);
    return nullptr;
  }
  std::string msg =
      (place.empty() ? std::string() : place + ": ") + "unknown " + what + " \"" + name + "\"";
  const bool volcano =
      kind == SCORIA_KIND_ACTION ? is_volcano_action(name) : is_volcano_plugin(name);
  if (found != nullptr)
    msg += std::string("; it is a") + (kind == SCORIA_KIND_ACTION ? " plugin" : "n action") +
           ", so it belongs in the " + (kind == SCORIA_KIND_ACTION ? "tiers" : "actions");
  else if (volcano)
    msg += std::string("; Scoria builds Volcano's ") + what +
           " of this name, but no plugin directory holds it: check that the built-ins' "
           "directory is among plugin_dirs (or --plugin-dir), or install a plugin that "
           "provides it";
  else if (const auto near = model::closest(name, registry.names(kind)))
    msg += "; did you mean \"" + *near + "\"?";
  msg += std::string(msg.ends_with('?') ? " Available " : ". Available ") + what +
         "s: " + join(registry.names(kind));
  if (!volcano && found == nullptr) msg += ". Or add the directory holding it to plugin_dirs";
  problems.push_back(std::move(msg));
  return nullptr;
}

// Checks `args` against what `loaded` declares, into `problems`.
void check(const plugin::LoadedPlugin& loaded, const std::string& owner,
           const config::Arguments& args, const config::ArgumentPlaces& places,
           const std::string& place, std::vector<std::string>& problems) {
  const auto specs = plugin::declared_args(*loaded.descriptor);
  if (!specs) return;  // built before 1.2, or declares nothing: not checked
  for (auto& p :
       plugin::check_arguments(owner, loaded.descriptor->name, *specs, args, places, place))
    problems.push_back(std::move(p));
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
  // Every name and argument first, so that a config with several mistakes
  // is told of them all at once; no instance is created until all are sound.
  static const config::Arguments kNone;
  static const config::ArgumentPlaces kNowhere;
  std::vector<std::string> problems;
  std::vector<std::shared_ptr<plugin::LoadedPlugin>> actions, plugins;
  for (size_t i = 0; i < config_.actions.size(); ++i) {
    const std::string& name = config_.actions[i];
    const std::string place = i < config_.action_places.size() ? config_.action_places[i] : "";
    auto loaded = resolve(registry, name, SCORIA_KIND_ACTION, place, problems);
    const auto args = config_.action_arguments.find(name);
    const auto places = config_.action_argument_places.find(name);
    if (loaded != nullptr)
      check(*loaded, "action \"" + name + "\"",
            args == config_.action_arguments.end() ? kNone : args->second,
            places == config_.action_argument_places.end() ? kNowhere : places->second,
            place.empty() ? "configurations[" + name + "]" : place, problems);
    actions.push_back(std::move(loaded));
  }
  for (const auto& tier : config_.tiers)
    for (const auto& option : tier.plugins) {
      auto loaded = resolve(registry, option.name, SCORIA_KIND_PLUGIN, option.place, problems);
      if (loaded != nullptr)
        check(*loaded, "plugin \"" + option.name + "\"", option.arguments, option.argument_places,
              option.place, problems);
      plugins.push_back(std::move(loaded));
    }
  if (problems.size() == 1) throw InputError(problems.front());
  if (!problems.empty()) {
    std::string all = std::to_string(problems.size()) + " problems in the config:";
    for (const auto& p : problems) all += "\n  " + p;
    throw InputError(all);
  }

  for (size_t i = 0; i < config_.actions.size(); ++i) {
    const std::string& name = config_.actions[i];
    const auto args = config_.action_arguments.find(name);
    actions_.push_back(
        {name, std::make_unique<plugin::PluginInstance>(
                   actions[i], args == config_.action_arguments.end() ? kNone : args->second)});
  }
  size_t next = 0;
  for (size_t t = 0; t < config_.tiers.size(); ++t)
    for (const auto& option : config_.tiers[t].plugins)
      plugins_.push_back(
          {t, &option,
           std::make_unique<plugin::PluginInstance>(plugins[next++], plugin_arguments(option))});
}

Scheduler::~Scheduler() = default;

cycle::Outcome Scheduler::run_once(const cycle::Snapshot& snapshot, SessionTimings* timings) {
  cycle::Outcome out;
  run_once(snapshot, out, timings);
  return out;
}

void Scheduler::run_once(const cycle::Snapshot& snapshot, cycle::Outcome& out,
                         SessionTimings* timings) {
  const auto start = Clock::now();
  session::Session& ssn = session_.emplace(snapshot, config_, &workers_, &memory_);
  struct Ends {
    std::optional<session::Session>& session;
    ~Ends() { session.reset(); }
  } ends{session_};
  for (const std::string& line : topology_problems_.fresh(ssn.topology().problems()))
    log::write(log::kWarning, "hypernodes", line);
  if (explain_) ssn.explain(*explain_);
  ssn.time_stages(timings != nullptr);
  auto* handle = reinterpret_cast<scoria_session*>(&ssn);

  for (auto& p : plugins_) {
    const scoria_descriptor& d = p.instance->descriptor();
    session::PluginHooks hooks;
    hooks.name = d.name;
    hooks.option = p.option;
    hooks.ctx = p.instance->ctx();
    hooks.serial = (d.flags & SCORIA_FLAG_SERIAL_HOOKS) != 0;
    hooks.arguments = &p.instance->arguments();
    hooks.hooks.struct_size = sizeof(scoria_hooks);
    const auto t = Clock::now();
    if (tracker_) tracker_->enter(p.option->name, "on_session_open");
    const scoria_code opened = [&] {
      const plugin::InPlugin in(plugin::lasting_name(p.option->name), "on_session_open");
      return d.on_session_open(p.instance->state(), handle, &hooks.hooks);
    }();
    if (timings) timings->plugins_ms.push_back({p.option->name, "OnSessionOpen", ms_since(t)});
    if (opened != SCORIA_OK) {
      plugin::count_error(hooks.ctx, "on_session_open failed; plugin skipped this session");
      continue;
    }
    ssn.add_plugin_hooks(p.tier, std::move(hooks));
  }
  if (timings) {
    timings->open_ms = ms_since(start);
    timings->kept_records = ssn.kept_records();
  }

  for (auto& a : actions_) {
    const auto t = Clock::now();
    // Plugins' hooks run inside an action's on_execute, so a hang there is
    // reported as the action's.
    if (tracker_) tracker_->enter(a.name, "on_execute");
    ssn.set_action(a.name);
    const plugin::InPlugin in(plugin::lasting_name(a.name), "on_execute");
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
    const plugin::InPlugin in(plugin::lasting_name(p.option->name), "on_session_close");
    d.on_session_close(p.instance->state(), handle);
    if (timings) timings->plugins_ms.push_back({p.option->name, "OnSessionClose", ms_since(t)});
  }
  if (tracker_) tracker_->leave();
  ssn.close(out);
  if (timings) {
    timings->close_ms = ms_since(close_start);
    timings->kept_entries = ssn.kept_entries();
    timings->total_ms = ms_since(start);
    timings->predicate_ms = std::move(ssn.stage_durations().predicate_ms);
    timings->scoring_ms = std::move(ssn.stage_durations().scoring_ms);
  }
}

std::vector<std::pair<std::string, uint64_t>> Scheduler::plugin_errors() const {
  std::vector<std::pair<std::string, uint64_t>> out;
  for (const auto& a : actions_) out.emplace_back(a.name, a.instance->ctx()->errors.load());
  for (const auto& p : plugins_) out.emplace_back(p.option->name, p.instance->ctx()->errors.load());
  return out;
}

}  // namespace scoria::scheduler
