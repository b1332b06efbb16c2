// The Kubernetes kinds whose protobuf encoding the API reads, by apiVersion
// and kind, each with its message table. kubectl's typed clients send
// these as protobuf (create namespace|priorityclass|quota|pdb, auth can-i,
// drain's delete); every other kind comes as JSON.
#pragma once

#include <span>
#include <string_view>

#include "api/protobuf_message.h"

namespace scoria::api::protobuf {

struct Kind {
  std::string_view api_version;  // "v1" or "group/version"
  std::string_view kind;
  const Message* message;
};

std::span<const Kind> kinds();
/// The kind's table, or nullptr when its protobuf encoding is not read.
const Message* find_kind(std::string_view api_version, std::string_view kind);

}  // namespace scoria::api::protobuf
