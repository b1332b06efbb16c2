// The host's error types. Inside the host, failures are exceptions of these
// types; at the ABI boundary they become scoria_code values.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>

namespace scoria {

/// Bad user input: an object file, a config, a plugin file. The message
/// names the file, the place and the fix; the CLI exits 2 with it.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Bad input at one field of an object: the message as InputError words
/// it, plus the field's path and what is wrong there, apart, for the API's
/// Status causes.
class FieldError : public InputError {
 public:
  FieldError(const std::string& message, std::string field, std::string detail)
      : InputError(message), field_(std::move(field)), detail_(std::move(detail)) {}
  const std::string& field() const { return field_; }
  const std::string& detail() const { return detail_; }

 private:
  std::string field_;
  std::string detail_;
};

}  // namespace scoria
