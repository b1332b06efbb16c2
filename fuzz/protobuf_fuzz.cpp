// Kubernetes' protobuf request bodies: the first byte picks a kind the API
// reads (its low bits) and whether the rest is a whole body (the "k8s\0"
// envelope, high bit clear) or that kind's message alone (high bit set).
// A body is read or refused with a Status (ApiError), a message read or
// refused with a WireError; what is read must write as strict UTF-8 JSON.
// A crash, a sanitizer report, an overread or any other exception is a
// finding.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "api/protobuf_body.h"
#include "api/protobuf_kinds.h"
#include "api/protobuf_message.h"
#include "api/protobuf_wire.h"
#include "api/status.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace api = scoria::api;
  if (size == 0) return 0;
  const auto kinds = api::protobuf::kinds();
  const api::protobuf::Kind& kind = kinds[(data[0] & 0x7f) % kinds.size()];
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  nlohmann::json object;
  try {
    if (data[0] & 0x80)
      object = api::protobuf::to_json(*kind.message, rest);
    else
      object = api::object_from_protobuf(rest, kind.api_version, kind.kind);
  } catch (const api::ApiError&) {
    return 0;
  } catch (const api::protobuf::WireError&) {
    return 0;
  }
  // Strict: invalid UTF-8 left in a string throws here.
  (void)object.dump();
  return 0;
}
