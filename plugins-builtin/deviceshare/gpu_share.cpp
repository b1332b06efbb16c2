#include "gpu_share.h"

#include <algorithm>
#include <charconv>

namespace scoria_deviceshare {

namespace {

std::optional<int> parse_int(std::string_view s) {
  int v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

template <class Fn>
void split(std::string_view s, char sep, Fn&& fn) {
  for (;;) {
    const size_t at = s.find(sep);
    fn(s.substr(0, at));
    if (at == std::string_view::npos) return;
    s.remove_prefix(at + 1);
  }
}

}  // namespace

std::optional<ShareNode> ShareNode::build(double total_memory, double cards,
                                          std::optional<std::string_view> unhealthy,
                                          std::string* bad) {
  const auto count = static_cast<int64_t>(cards);
  if (total_memory <= 0 || count <= 0) return std::nullopt;
  ShareNode node;
  // Volcano: integer division of the node's memory by its cards.
  const auto per_card = static_cast<uint64_t>(total_memory) / static_cast<uint64_t>(count);
  for (int64_t i = 0; i < count; ++i)
    node.cards_.push_back(ShareCard{static_cast<int>(i), per_card, 0, 0});
  if (unhealthy) {
    split(*unhealthy, ',', [&](std::string_view part) {
      const std::optional<int> id = parse_int(part);
      if (!id) {
        if (bad != nullptr && bad->empty()) *bad = std::string(part);
        return;
      }
      std::erase_if(node.cards_, [&](const ShareCard& c) { return c.id == *id; });
    });
  }
  return node;
}

ShareCard* ShareNode::card(int id) {
  for (ShareCard& c : cards_)
    if (c.id == id) return &c;
  return nullptr;
}

void ShareNode::add(const std::vector<int>& ids, uint64_t memory) {
  for (int id : ids)
    if (ShareCard* c = card(id)) {
      c->used_memory += memory;
      ++c->pods;
    }
}

void ShareNode::remove(const std::vector<int>& ids, uint64_t memory) {
  for (int id : ids)
    if (ShareCard* c = card(id)) {
      c->used_memory -= std::min(c->used_memory, memory);
      if (c->pods > 0) --c->pods;
    }
}

std::vector<int> ShareNode::by_memory(uint64_t memory) const {
  // A card whose pods ask for more than it has is full, not wrapped round.
  for (const ShareCard& c : cards_) {
    const uint64_t idle = c.used_memory >= c.memory ? 0 : c.memory - c.used_memory;
    if (idle >= memory) return {c.id};
  }
  return {};
}

std::vector<int> ShareNode::by_number(uint64_t number) const {
  std::vector<int> ids;
  for (const ShareCard& c : cards_)
    if (c.pods == 0) ids.push_back(c.id);
  if (ids.size() < number) return {};
  ids.resize(number);
  return ids;
}

bool ShareNode::fits(const ShareRequest& req, bool sharing, bool number) const {
  if (sharing && req.memory > 0) {
    bool any = false;
    for (const ShareCard& c : cards_)
      any = any || (c.used_memory < c.memory && c.memory - c.used_memory >= req.memory);
    if (!any) return false;
  }
  if (number && req.number > 0) {
    uint64_t idle = 0;
    for (const ShareCard& c : cards_) idle += c.pods == 0 ? 1 : 0;
    if (idle < req.number) return false;
  }
  return true;
}

std::optional<std::vector<int>> ShareNode::fit(const ShareRequest& req, bool sharing,
                                               bool number) const {
  // Volcano's FilterNode: each enabled check on its own request...
  std::vector<int> memory_ids, number_ids;
  if (req.memory > 0) memory_ids = by_memory(req.memory);
  if (req.number > 0) number_ids = by_number(req.number);
  if (sharing && req.memory > 0 && memory_ids.empty()) return std::nullopt;
  if (number && req.number > 0 && number_ids.empty()) return std::nullopt;
  // ...then its Allocate: memory first, else whole cards.
  if (req.memory > 0) return memory_ids;
  return number_ids;
}

std::optional<std::vector<int>> parse_gpu_index(std::string_view value) {
  std::vector<int> ids;
  bool ok = true;
  split(value, ',', [&](std::string_view part) {
    const std::optional<int> id = parse_int(part);
    if (!id)
      ok = false;
    else
      ids.push_back(*id);
  });
  if (!ok) return std::nullopt;
  return ids;
}

std::string format_gpu_index(const std::vector<int>& ids) {
  std::string out;
  for (size_t i = 0; i < ids.size(); ++i) {
    if (i > 0) out += ',';
    out += std::to_string(ids[i]);
  }
  return out;
}

}  // namespace scoria_deviceshare
