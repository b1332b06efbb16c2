// An instance of a plugin or action created from the config (on_create),
// destroyed with on_destroy. Holds its library loaded.
#pragma once

#include <scoria/scoria.h>

#include <memory>

#include "config/scheduler_config.h"
#include "plugin/plugin_args.h"

namespace scoria::plugin {

class LoadedPlugin;

class PluginInstance {
 public:
  /// Calls on_create with `arguments`. Throws InputError naming the plugin
  /// and its message if it refuses.
  PluginInstance(std::shared_ptr<LoadedPlugin> plugin, const config::Arguments& arguments);
  ~PluginInstance();
  PluginInstance(const PluginInstance&) = delete;
  PluginInstance& operator=(const PluginInstance&) = delete;

  const scoria_descriptor& descriptor() const;
  scoria_plugin_ctx* ctx() const;
  void* state() const { return state_; }
  /// The arguments it was created with, declared defaults included.
  const config::Arguments& arguments() const { return args_->values; }

 private:
  std::shared_ptr<LoadedPlugin> plugin_;
  std::unique_ptr<scoria_args> args_;
  void* state_ = nullptr;
};

}  // namespace scoria::plugin
