// Messages of the protobuf wire format as tables, and the JSON object a
// message's bytes are: each message is a table of (field number, JSON
// name, type, label, when JSON writes it), so that reading a new kind is
// writing its tables (protobuf_kinds.cpp), not code.
//
// The JSON is what Go's encoding/json writes for the same Go object, so a
// protobuf body and the same object sent as JSON take one path through
// the API. Kubernetes' encoder writes every non-pointer field, zero or not,
// so on the wire "absent" and "zero" mean the same for those; only
// pointer fields have presence. `Emit` says which rule a field follows.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>
#include <string_view>

namespace scoria::api::protobuf {

enum class Type : uint8_t {
  kString,
  kBytes,  // base64, as encoding/json writes []byte
  kBool,
  kInt32,
  kInt64,
  kMessage,      // `Field::message` is its table
  kQuantity,     // resource.Quantity {string = 1}: a bare string ("1Gi")
  kIntOrString,  // intstr.IntOrString {type = 1, intVal = 2, strVal = 3}: a bare number or string
  kTime,         // meta.v1.Time {seconds = 1}: RFC 3339 in seconds; an empty message is null
};

enum class Label : uint8_t {
  kSingle,
  kRepeated,
  kMap,  // map<string, Type>: entries {key = 1, value = 2} on the field's number
};

/// When the JSON has the field, as encoding/json decides for its Go field.
enum class Emit : uint8_t {
  kOmitEmpty,  // `omitempty`: left out when "", 0, false or an empty list or map
  kAlways,     // no omitempty: written when zero, a struct as its own zero object
  kPresent,    // a pointer: written when on the wire, zero or not
};

struct Message;

struct Field {
  uint32_t number;
  std::string_view json;
  Type type;
  Label label = Label::kSingle;
  Emit emit = Emit::kOmitEmpty;
  const Message* message = nullptr;  // for kMessage
};

struct Message {
  std::string_view name;  // as errors name it
  std::span<const Field> fields;
};

/// Messages may nest this deep (the tables nest far less); deeper is a
/// WireError, so that no body can recurse without bound.
inline constexpr int kMaxMessageDepth = 32;

/// The JSON object `bytes` encode as `message`. Unknown field numbers are
/// skipped, as Go skips them (a newer client may send fields this table
/// lacks); a known field with the wrong wire type, and every malformed
/// record, is a WireError naming the field's JSON path.
nlohmann::json to_json(const Message& message, std::string_view bytes);

/// `text` with each byte that is not part of valid UTF-8 replaced by
/// U+FFFD, as encoding/json writes a Go string.
std::string valid_utf8(std::string_view text);

}  // namespace scoria::api::protobuf
