// Errors as the API server writes them: a `kind: Status` object with the
// HTTP code, a machine-readable reason (NotFound, AlreadyExists, Conflict,
// Invalid, BadRequest, MethodNotAllowed, Gone, Expired, ...) and, for
// Invalid, the causes naming each field. Handlers throw ApiError; the
// router turns it into the answer.
#pragma once

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

namespace scoria::api {

struct Cause {
  std::string reason;  // FieldValueInvalid, FieldValueRequired, ...
  std::string message;
  std::string field;
};

class ApiError : public std::runtime_error {
 public:
  ApiError(unsigned code, std::string reason, const std::string& message,
           nlohmann::json details = nullptr)
      : std::runtime_error(message),
        code_(code),
        reason_(std::move(reason)),
        details_(std::move(details)) {}
  unsigned code() const { return code_; }
  const std::string& reason() const { return reason_; }
  /// The Status object.
  nlohmann::json status() const;

 private:
  unsigned code_;
  std::string reason_;
  nlohmann::json details_;
};

/// A Status of success (what DELETE of a collection answers, for one).
nlohmann::json success_status(const nlohmann::json& details = nullptr);

/// 404 NotFound for `plural` "name" (as: pods "web-0" not found).
ApiError not_found(std::string_view group, std::string_view plural, std::string_view name);
/// 409 AlreadyExists.
ApiError already_exists(std::string_view group, std::string_view plural, std::string_view name);
/// 409 Conflict on a stale resourceVersion.
ApiError conflict(std::string_view group, std::string_view plural, std::string_view name);
/// 422 Invalid with causes.
ApiError invalid(std::string_view group, std::string_view kind, std::string_view name,
                 std::vector<Cause> causes);
/// 400 BadRequest.
ApiError bad_request(const std::string& message);

}  // namespace scoria::api
