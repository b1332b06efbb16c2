// The service table the host hands to every plugin, and the host's side of
// the opaque scoria_args handle.
#pragma once

#include <scoria/scoria.h>

#include "config/scheduler_config.h"

/// A plugin's or action's `arguments` from the config.
struct scoria_args {
  scoria::config::Arguments values;
};

namespace scoria::plugin {

/// The one service table of this host (static storage).
const scoria_host_api* host_api();

}  // namespace scoria::plugin
