// The unknown fields of a document's objects (the document itself, or each
// item of a List), worded for a reader of object files: the file, the
// document, the object, the field and the fix.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "input/node_tree.h"

namespace scoria::source {

/// One message per unknown field of the objects of `doc` (document `number`
/// of `origin`), in document order:
///   pods.yaml: document 3 (Pod default/web-0): unknown field
///   "spec.containers[0].resouces"; remove it or correct its name (did you
///   mean "resources"?)
std::vector<std::string> unknown_field_messages(const nlohmann::json& doc, std::string_view origin,
                                                int number);
std::vector<std::string> unknown_field_messages(const input::Node& doc, std::string_view origin,
                                                int number);

/// Removes the unknown fields of the objects of `doc`.
void remove_unknown_fields(nlohmann::json& doc);

}  // namespace scoria::source
