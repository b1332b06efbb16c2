// Config reloads: the config and its plugins are loaded beside the loop (a
// plugin file's trial may run to its limit while /healthz, the API and
// SIGTERM are answered), then handed to the loop. One runs at a time; a
// reload asked for while one is under way runs once it ends.
#pragma once

#include <boost/asio/io_context.hpp>
#include <functional>
#include <optional>
#include <string>

#include "serve/loaded_config.h"
#include "serve/off_loop.h"

namespace scoria::serve {

class ConfigReloads {
 public:
  /// Loads the config, beside the loop; throws with the reason it is bad.
  using Load = std::function<LoadedConfig()>;
  /// On the loop: a config loaded, and why it was reloaded.
  using Adopt = std::function<void(LoadedConfig loaded, const std::string& why)>;
  /// On the loop: why the config was refused.
  using Reject = std::function<void(const std::string& error)>;

  ConfigReloads(boost::asio::io_context& io, Load load, Adopt adopt, Reject reject)
      : load_(std::move(load)),
        adopt_(std::move(adopt)),
        reject_(std::move(reject)),
        loading_(io) {}
  ConfigReloads(const ConfigReloads&) = delete;
  ConfigReloads& operator=(const ConfigReloads&) = delete;

  /// On the loop: reloads, `why` saying what asked (for the log line).
  void request(std::string why);

 private:
  struct Loaded {
    std::optional<LoadedConfig> config;
    std::string error;
  };

  Load load_;
  Adopt adopt_;
  Reject reject_;
  std::optional<std::string> again_;  // asked for while one was loading
  // Last, so destroyed first: it waits for a load under way, whose
  // completion (which uses the members above) then never runs.
  OffLoop<Loaded> loading_;
};

}  // namespace scoria::serve
