// The host's error types. Inside the host, failures are exceptions of these
// types; at the ABI boundary they become scoria_code values.
#pragma once

#include <stdexcept>
#include <string>

namespace scoria {

/// Bad user input: an object file, a config, a plugin file. The message
/// names the file, the place and the fix; the CLI exits 2 with it.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace scoria
