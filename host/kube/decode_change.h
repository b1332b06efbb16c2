// An object the API server sent (a list item, a watch event's object, a
// fresh GET) as the change the cache takes.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "api/resources.h"
#include "cache/object_change.h"

namespace scoria::kube {

/// The cache's key of `object` of `resource` ("ns/name" or "name").
std::string object_key(const nlohmann::json& object, const api::Resource& resource);

/// Appends the Upsert `object` decodes to (its kind and apiVersion filled in
/// where the server left them out, as in list items). Throws InputError
/// naming the object and the field when it does not decode.
void decode_change(nlohmann::json& object, const api::Resource& resource,
                   std::vector<cache::ObjectChange>& out);

}  // namespace scoria::kube
