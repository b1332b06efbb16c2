// Objects the API decoded as it wrote them (a write is validated by
// decoding it), kept for the cache's next refresh, which then takes them
// as they are instead of parsing and decoding the stored text again.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "decode/object_decoder.h"

namespace scoria::serve {

class WrittenObjects {
 public:
  /// Keeps what `text`, stored as `kind` `key` at `version`, decodes to.
  void remember(std::string_view kind, std::string_view key, int64_t version, std::string text,
                std::vector<decode::Decoded> decoded);
  /// What the object logged as `kind` `key` at `version` with `text`
  /// decodes to, if it was remembered; taken out. The text must match as
  /// well: a version can be handed out again after a write group rolls
  /// back, never with the same text meaning something else.
  std::optional<std::vector<decode::Decoded>> take(std::string_view kind, std::string_view key,
                                                   int64_t version, std::string_view text);
  /// Forgets everything (what a refresh did not take is stale).
  void clear() { entries_.clear(); }
  size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    int64_t version = 0;
    std::string text;
    std::vector<decode::Decoded> decoded;
  };
  // By "Kind key": an object written twice before a refresh keeps its last.
  std::unordered_map<std::string, Entry> entries_;
};

}  // namespace scoria::serve
