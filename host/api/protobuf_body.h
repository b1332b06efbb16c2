// A request body in Kubernetes' protobuf encoding, as kubectl's typed
// clients send it: the four bytes "k8s\0", then a runtime.Unknown whose
// typeMeta names the object's apiVersion and kind and whose raw holds the
// object's own message. Read into the JSON object the same object sent as
// JSON would be, so that everything after the read is the JSON path.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace scoria::api {

inline constexpr std::string_view kProtobufMediaType = "application/vnd.kubernetes.protobuf";

/// Whether a Content-Type header (its parameters aside) names the encoding.
bool is_protobuf(std::string_view content_type);

/// The envelope of a body. Throws protobuf::WireError.
struct ProtobufEnvelope {
  std::string api_version;
  std::string kind;
  std::string_view raw;  // into the body
};
ProtobufEnvelope read_envelope(std::string_view body);

/// The object `body` encodes, with apiVersion and kind set; an envelope
/// that names none is taken as the `api_version` and `kind` the endpoint
/// expects, as the API server takes it. Throws ApiError: 400 BadRequest
/// naming what is malformed, 415 UnsupportedMediaType (send JSON) for a
/// kind whose encoding this server does not read.
nlohmann::json object_from_protobuf(std::string_view body, std::string_view api_version,
                                    std::string_view kind);

}  // namespace scoria::api
