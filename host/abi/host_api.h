// The service table the host hands to every plugin: the C ABI's host
// functions, implemented over the session (above it, so that the plugin
// loader below the session only carries the table to each plugin).
#pragma once

#include <scoria/scoria.h>

namespace scoria::abi {

/// The one service table of this host (static storage).
const scoria_host_api* host_api();

}  // namespace scoria::abi
