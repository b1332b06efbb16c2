#include "serve/written_objects.h"

#include <utility>

namespace scoria::serve {

namespace {

// Bounds memory when nothing refreshes from the local store (the service
// schedules a Kubernetes cluster): past this many, all are dropped (a
// refresh then decodes them from the store).
constexpr size_t kMaxEntries = 100000;

std::string id_of(std::string_view kind, std::string_view key) {
  std::string id;
  id.reserve(kind.size() + 1 + key.size());
  id.append(kind).append(" ").append(key);
  return id;
}

}  // namespace

void WrittenObjects::remember(std::string_view kind, std::string_view key, int64_t version,
                              std::string text, std::vector<decode::Decoded> decoded) {
  if (entries_.size() >= kMaxEntries) entries_.clear();
  entries_[id_of(kind, key)] = Entry{version, std::move(text), std::move(decoded)};
}

std::optional<std::vector<decode::Decoded>> WrittenObjects::take(std::string_view kind,
                                                                 std::string_view key,
                                                                 int64_t version,
                                                                 std::string_view text) {
  const auto it = entries_.find(id_of(kind, key));
  if (it == entries_.end()) return std::nullopt;
  // An earlier version of an object written again: the later one stays for
  // its own log entry.
  if (it->second.version > version) return std::nullopt;
  std::optional<std::vector<decode::Decoded>> out;
  if (it->second.version == version && it->second.text == text) out = std::move(it->second.decoded);
  entries_.erase(it);
  return out;
}

}  // namespace scoria::serve
