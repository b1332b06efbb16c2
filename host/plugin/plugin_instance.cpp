#include "plugin/plugin_instance.h"

#include "model/error.h"
#include "plugin/declared_args.h"
#include "plugin/loaded_plugin.h"

namespace scoria::plugin {

PluginInstance::PluginInstance(std::shared_ptr<LoadedPlugin> plugin,
                               const config::Arguments& arguments)
    : plugin_(std::move(plugin)), args_(std::make_unique<scoria_args>()) {
  args_->values = arguments;
  if (const auto specs = declared_args(*plugin_->descriptor)) add_defaults(*specs, args_->values);
  const scoria_descriptor& d = *plugin_->descriptor;
  if (d.on_create == nullptr) return;
  char error[512] = "";
  scoria_code rc = d.on_create(plugin_->ctx.get(), args_.get(), &state_, error, sizeof error);
  if (rc != SCORIA_OK) {
    error[sizeof error - 1] = '\0';
    throw InputError(std::string(d.name) + " (" + plugin_->file.string() +
                     ") refused its configuration: " + (error[0] ? error : "no message") +
                     "; check its arguments in the config");
  }
}

PluginInstance::~PluginInstance() {
  const scoria_descriptor& d = *plugin_->descriptor;
  if (d.on_destroy != nullptr) d.on_destroy(state_);
}

const scoria_descriptor& PluginInstance::descriptor() const { return *plugin_->descriptor; }
scoria_plugin_ctx* PluginInstance::ctx() const { return plugin_->ctx.get(); }

}  // namespace scoria::plugin
