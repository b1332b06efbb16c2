#include "plugin/reason_table.h"

#include <deque>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <unordered_map>

namespace scoria::plugin {
namespace {

// Part of the plugin registry's process-wide state: plugins hold these ids
// across sessions and config reloads.
struct ReasonTable {
  std::shared_mutex mutex;
  std::deque<std::string> texts;  // deque: references stay valid on growth
  std::unordered_map<std::string_view, uint32_t> ids;
};

ReasonTable& table() {
  static ReasonTable t;
  return t;
}

}  // namespace

uint32_t intern_reason(std::string_view text) {
  ReasonTable& t = table();
  {
    std::shared_lock lock(t.mutex);
    if (auto it = t.ids.find(text); it != t.ids.end()) return it->second;
  }
  std::unique_lock lock(t.mutex);
  if (auto it = t.ids.find(text); it != t.ids.end()) return it->second;
  t.texts.emplace_back(text);
  auto id = static_cast<uint32_t>(t.texts.size());
  t.ids.emplace(t.texts.back(), id);
  return id;
}

std::string_view reason_text(uint32_t id) {
  ReasonTable& t = table();
  std::shared_lock lock(t.mutex);
  if (id == 0 || id > t.texts.size()) return {};
  return t.texts[id - 1];
}

}  // namespace scoria::plugin
