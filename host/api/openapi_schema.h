// OpenAPI schemas of the kinds served, made from the field schema
// (schema/field_schema.h): each named type a definition of its own (the API
// server's names: io.k8s.api.core.v1.Pod, sh.volcano.scheduling.v1beta1.
// Queue, ...), anonymous ones inline; scalars typed (Quantity and
// IntOrString as the API server publishes them), lists with their
// x-kubernetes-list-type and keys, atomic objects and maps marked, required
// fields listed, and each kind's definition carrying its
// x-kubernetes-group-version-kind. No descriptions: the table has none.
#pragma once

#include <nlohmann/json.hpp>
#include <span>

#include "api/resources.h"

namespace scoria::api {

enum class OpenApiVersion { kV2, kV3 };

/// The definitions (v2 `definitions`, v3 `components.schemas`) of the kinds
/// of `served` and every named type under them.
nlohmann::json openapi_definitions(std::span<const Resource* const> served, OpenApiVersion v);

/// The reference to a kind's definition, as a v2 or v3 document spells it
/// (null for a kind the field schema lacks).
nlohmann::json openapi_kind_ref(const Resource& r, OpenApiVersion v);

}  // namespace scoria::api
