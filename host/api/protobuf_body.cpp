#include "api/protobuf_body.h"

#include <algorithm>

#include "api/media_type.h"
#include "api/protobuf_kinds.h"
#include "api/protobuf_wire.h"
#include "api/status.h"

namespace scoria::api {

namespace {

using nlohmann::json;
using protobuf::WireError;
using protobuf::WireField;
using protobuf::WireReader;
using protobuf::WireType;

constexpr std::string_view kPrefix{"k8s\0", 4};

std::string field_text(const WireField& f, std::string_view what) {
  if (f.type != WireType::kLength) throw WireError(std::string(what) + " is not a string");
  return protobuf::valid_utf8(f.bytes);
}

// The first bytes of a body in hex, as the API server summarises a body
// it could not read.
std::string summary(std::string_view body) {
  if (body.empty()) return "<empty>";
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < std::min<size_t>(body.size(), 30); ++i) {
    const auto c = static_cast<unsigned char>(body[i]);
    out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 15]);
  }
  if (body.size() > 30) out += " ...";
  return out;
}

std::string kinds_read() {
  std::string out;
  for (const protobuf::Kind& k : protobuf::kinds()) {
    if (k.api_version == "meta.k8s.io/v1") continue;  // DeleteOptions is named once
    if (!out.empty()) out += ", ";
    out += std::string(k.kind);
  }
  return out;
}

}  // namespace

bool is_protobuf(std::string_view content_type) {
  return media_type(content_type) == kProtobufMediaType;
}

ProtobufEnvelope read_envelope(std::string_view body) {
  if (body.empty()) throw WireError("empty data");
  if (!body.starts_with(kPrefix)) {
    throw WireError(
        "provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]");
  }
  body.remove_prefix(kPrefix.size());
  if (body.empty()) throw WireError("empty body");
  // An absent raw is an empty one: an object with every field at its zero
  // value (an empty DeleteOptions is sent so).
  ProtobufEnvelope out;
  for (WireReader r(body); !r.done();) {
    const WireField f = r.next();
    switch (f.number) {
      case 1: {
        if (f.type != WireType::kLength) throw WireError("typeMeta is not a message");
        for (WireReader t(f.bytes); !t.done();) {
          const WireField tf = t.next();
          if (tf.number == 1) out.api_version = field_text(tf, "typeMeta.apiVersion");
          if (tf.number == 2) out.kind = field_text(tf, "typeMeta.kind");
        }
        break;
      }
      case 2:
        if (f.type != WireType::kLength) throw WireError("raw is not bytes");
        out.raw = f.bytes;
        break;
      case 3:
        // Kubernetes never compresses the object inside; one that says so
        // cannot be read as it is.
        if (const std::string encoding = field_text(f, "contentEncoding"); !encoding.empty())
          throw WireError("contentEncoding \"" + encoding + "\" is not supported");
        break;
      default:
        break;  // contentType and anything newer: not needed to read raw
    }
  }
  return out;
}

json object_from_protobuf(std::string_view body, std::string_view api_version,
                          std::string_view kind) {
  ProtobufEnvelope envelope;
  try {
    envelope = read_envelope(body);
  } catch (const WireError& e) {
    throw bad_request("the object provided is unrecognized (must be of type " + std::string(kind) +
                      "): " + e.what() + " (" + summary(body) + ")");
  }
  if (envelope.kind.empty()) envelope.kind = std::string(kind);
  if (envelope.api_version.empty()) envelope.api_version = std::string(api_version);
  const protobuf::Message* message = protobuf::find_kind(envelope.api_version, envelope.kind);
  if (message == nullptr) {
    if (envelope.kind == kind && envelope.api_version != api_version &&
        protobuf::find_kind(api_version, kind) != nullptr) {
      throw bad_request("the API version in the data (" + envelope.api_version +
                        ") does not match the expected API version (" + std::string(api_version) +
                        ")");
    }
    throw ApiError(415, "UnsupportedMediaType",
                   "the body of the request was in an unknown format - accepted media types "
                   "include: application/json, application/yaml; this server reads " +
                       std::string(kProtobufMediaType) + " for " + kinds_read() + " only: send " +
                       envelope.api_version + " " + envelope.kind + " as application/json");
  }
  json object;
  try {
    object = protobuf::to_json(*message, envelope.raw);
  } catch (const WireError& e) {
    // In the API server's words: the version without its group.
    const size_t slash = envelope.api_version.find('/');
    const std::string version =
        slash == std::string::npos ? envelope.api_version : envelope.api_version.substr(slash + 1);
    throw bad_request(envelope.kind + " in version \"" + version + "\" cannot be handled as a " +
                      std::string(kind) + ": " + e.what());
  }
  object["apiVersion"] = envelope.api_version;
  object["kind"] = envelope.kind;
  return object;
}

}  // namespace scoria::api
