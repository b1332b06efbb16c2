// Fields an object has that its kind does not (a mistyped `resouces:` in a
// container), found against the field schema (field_schema.h) as the API
// server's field validation finds them, and what to do about them.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "input/node_tree.h"

namespace scoria::schema {

/// The API server's fieldValidation directives: Strict refuses an object
/// with unknown fields, Warn takes it with a warning per field, Ignore
/// takes it silently. Taken objects never keep the unknown fields.
enum class FieldValidation { kIgnore, kWarn, kStrict };

/// "Ignore", "Warn" or "Strict" (as written in the query parameter);
/// nullopt for anything else.
std::optional<FieldValidation> parse_field_validation(std::string_view text);

struct UnknownField {
  std::string path;        // spec.containers[0].resouces: keys joined by dots, [i] for items
  std::string suggestion;  // the field of that object it is likely a typo of, or empty
};

/// The API server reports no more per object (sigs.k8s.io/json's limit).
inline constexpr size_t kMaxUnknownFields = 100;

/// The unknown fields of `object`, whose kind (its apiVersion and kind, or
/// `default_kind` when it names none, as a List's items) the schema has;
/// none for another kind, and none under free-form places (labels,
/// annotations, resource lists, fieldsV1). In document order as the API
/// server reports it: items in order, a mapping's keys in the order they are
/// held (sorted, the order kubectl sends them in). At most kMaxUnknownFields.
std::vector<UnknownField> find_unknown_fields(const nlohmann::json& object,
                                              std::string_view default_kind = {});
std::vector<UnknownField> find_unknown_fields(const input::Node& object,
                                              std::string_view default_kind = {});

/// find_unknown_fields, and every unknown field removed from `object`: the
/// API server keeps only the fields of its types.
std::vector<UnknownField> remove_unknown_fields(nlohmann::json& object,
                                                std::string_view default_kind = {});

}  // namespace scoria::schema
