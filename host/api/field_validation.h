// The API server's field validation, as clients see it: the fieldValidation
// query parameter, the warnings it sends for unknown fields (Warning: 299
// headers, which kubectl prints as "Warning: unknown field ...") and the
// errors that refuse them, word for word, so that kubectl and client
// libraries report them as they would against a cluster.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "api/patch.h"
#include "api/resources.h"
#include "api/status.h"
#include "schema/unknown_fields.h"

namespace scoria::api {

/// The directive a request names in its fieldValidation parameter, else
/// `fallback` (the server's default). Throws ApiError (422, as the API
/// server) for another value; `options_kind` is the options the request
/// carries: CreateOptions, UpdateOptions or PatchOptions.
schema::FieldValidation requested_validation(std::string_view query,
                                             schema::FieldValidation fallback,
                                             std::string_view options_kind);

/// One request's field validation: the directive it asks for (else the
/// server's default), applied to the object it writes. Whatever the
/// directive, what is written keeps none of the unknown fields, as the API
/// server keeps only the fields of its types.
class FieldValidator {
 public:
  /// Throws ApiError as requested_validation() does.
  FieldValidator(std::string_view query, schema::FieldValidation fallback,
                 std::string_view options_kind)
      : validation_(requested_validation(query, fallback, options_kind)) {}

  /// A create or update body for resource `r`: under Strict an unknown
  /// field refuses it (undecodable_body), else it is removed.
  void check_body(const Resource& r, nlohmann::json& object);
  /// A patch's result, `patch` applied as `type`: under Strict an unknown
  /// field refuses it (invalid_patch), else it is removed.
  void check_patched(const Resource& r, nlohmann::json& patched, const nlohmann::json& patch,
                     PatchType type);

  /// Warning headers for the last object checked (under Warn).
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  /// The unknown fields of `object` under Strict (nothing removed), else
  /// none: they are removed and, under Warn, become the warnings.
  std::vector<schema::UnknownField> check(const Resource& r, nlohmann::json& object);

  schema::FieldValidation validation_;
  std::vector<std::string> warnings_;
};

/// 422 for a request option the API server does not support, in its words:
/// `OPTIONS_KIND.meta.k8s.io "" is invalid: FIELD: Unsupported value:
/// VALUE: supported values: SUPPORTED` (`value` and `supported` as shown).
ApiError unsupported_option(std::string_view options_kind, std::string_view field,
                            std::string_view value, std::string_view supported);

/// `strict decoding error: unknown field "spec.x", unknown field "spec.y"`.
std::string strict_decoding_error(const std::vector<schema::UnknownField>& fields);

/// 400 for a create or update body with unknown fields under Strict:
/// `Pod in version "v1" cannot be handled as a Pod: strict decoding error: ...`.
ApiError undecodable_body(const Resource& r, const std::vector<schema::UnknownField>& fields);

/// 422 for a patch whose result has unknown fields under Strict: the field
/// `patch`, `value` what the API server shows (the patch for a strategic
/// merge, the patched object's JSON otherwise).
ApiError invalid_patch(std::string_view value, const std::vector<schema::UnknownField>& fields);

/// The patch as the API server shows it in that error: Go's %+v of the
/// decoded JSON (map[key:value ...] with keys sorted, [a b] for lists).
std::string go_value_text(const nlohmann::json& value);

/// One Warning header per unknown field: 299 - "unknown field \"spec.x\"".
std::vector<std::string> unknown_field_warnings(const std::vector<schema::UnknownField>& fields);

/// A Warning header's value, as the API server writes one: 299 - "text",
/// with \ and " escaped.
std::string warning_header(std::string_view text);

/// `s` as Go's strconv.Quote writes it (for valid UTF-8): in double quotes,
/// with \" \\ and control characters escaped.
std::string go_quote(std::string_view s);

}  // namespace scoria::api
