// Server-side apply (PATCH with application/apply-patch+yaml), as
// kube-apiserver's field manager does it: the applied configuration is
// merged into the live object, its manager comes to own exactly the fields
// it applied, fields it applied before and no longer applies go if no one
// else owns them, and a change to a field another manager owns is a
// conflict (409, naming each field and manager) unless forced, when the
// applier takes the field over.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "api/managed_fields.h"
#include "api/status.h"
#include "schema/field_schema.h"

namespace scoria::api {

struct ApplyRequest {
  Writer writer;       // manager, apiVersion, subresource, time
  bool force = false;  // force=true: conflicts are taken over
};

/// 422 for a PATCH's options as kube-apiserver validates them: an apply
/// needs a fieldManager, force is for applies only.
void check_patch_options(bool apply, std::string_view field_manager, bool force_given);

/// The applied configuration of a request body: refused (400) unless it is
/// an object of `api_version` and `kind` without managedFields.
void check_applied_config(const nlohmann::json& config, std::string_view api_version,
                          std::string_view kind);

/// `config` applied to `live` (nullptr when the object does not exist yet:
/// it is made from `config` alone), with metadata.managedFields updated.
/// Throws ApiError: 409 Conflict with FieldManagerConflict causes, 400
/// when `config` does not fit its schema.
nlohmann::json server_side_apply(const nlohmann::json* live, const nlohmann::json& config,
                                 const schema::Type* type, const ApplyRequest& request);

}  // namespace scoria::api
