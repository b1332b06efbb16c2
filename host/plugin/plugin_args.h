// The host's side of the opaque scoria_args handle: a plugin's or action's
// `arguments` from the config, as its on_create receives them.
#pragma once

#include "config/scheduler_config.h"

struct scoria_args {
  scoria::config::Arguments values;
};
