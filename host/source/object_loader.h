// Reads the section-4 object format (multi-document YAML or JSON) into
// model::ClusterObjects: documents read by input/, objects decoded by
// decode/, then collected across files and completed here.
#pragma once

#include "input/documents.h"
#include "model/cluster_objects.h"
#include "model/objects.h"
#include "schema/unknown_fields.h"

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace scoria::source {

/// What reading objects does with fields their kind does not have (a
/// mistyped `resouces:`): ignore them, warn, or refuse the object (Strict:
/// an InputError naming the file, the document, the object and the field).
/// A warning names the same, one per field, in document order; past
/// kMaxFieldWarnings of one read, a last one counts the rest.
struct FieldChecks {
  schema::FieldValidation validation = schema::FieldValidation::kIgnore;
  std::function<void(const std::string&)> warn;
};
inline constexpr size_t kMaxFieldWarnings = 100;

/// Parses `text` (the content of `file_name`, used in messages) and appends
/// the objects to `out`. Throws InputError naming the file, the document
/// number (1-based), the object (kind and name) and the field, with the fix.
/// On error nothing is appended.
void parse_objects(std::string_view text, const std::string& file_name, model::ClusterObjects& out,
                   const FieldChecks& checks = {});

/// Like parse_objects, for documents already read (under the caller's
/// limits).
void decode_objects(const std::vector<input::Document>& docs, std::string_view origin,
                    model::ClusterObjects& out, const FieldChecks& checks = {});

/// Reads every file ("-" is standard input) and then completes the set:
/// implicit PodGroups (minMember 1, queue "default") for pods without one,
/// queue "default" unless defined, pod priorities resolved from
/// PriorityClasses (globalDefault when unnamed). Validates references
/// (a pod naming a missing PodGroup is an error; a PodGroup naming a missing
/// PriorityClass is warned of through `checks.warn`). All or nothing.
model::ClusterObjects load_object_files(const std::vector<std::string>& files,
                                        const FieldChecks& checks = {});

/// The completion step of load_object_files alone, for objects that come
/// from elsewhere (the local store, tests).
void complete_objects(model::ClusterObjects& objects);

}  // namespace scoria::source
