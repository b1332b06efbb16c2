#include "gpu_exclusive.h"

#include <algorithm>
#include <charconv>

namespace scoria_deviceshare {

namespace {

std::optional<uint64_t> item_number(std::string_view s) {
  uint64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

std::string quote(std::string_view s) { return "\"" + std::string(s) + "\""; }

// A pod's containers may take the same card: it holds it once.
std::vector<size_t> once_each(std::vector<size_t> cards) {
  std::sort(cards.begin(), cards.end());
  cards.erase(std::unique(cards.begin(), cards.end()), cards.end());
  return cards;
}

}  // namespace

std::vector<ExclusiveRule> parse_exclusive_rules(
    const std::vector<std::pair<std::string, std::string>>& args,
    std::vector<std::string>* problems) {
  const std::string name(kGpuExclusiveRulesArgument);
  const auto problem = [&](std::string text) {
    if (problems != nullptr) problems->push_back(name + " " + std::move(text));
  };
  // Items by number (not by key: "10" sorts before "2" as text); nullopt
  // for an item that is not a map.
  std::map<uint64_t, std::optional<ExclusiveRule>> items;
  for (const auto& [key, value] : args) {
    if (key == name) {
      // Left empty (YAML's `NAME:` alone): no rule, as in Volcano.
      if (value.empty()) continue;
      // A list written as one text: nothing in it says which labels go
      // together, so no rule is guessed from it.
      problem("is one text (" + quote(value) +
              "), not a list of label maps; write it as a list, e.g. " + name +
              ": [{app: trainer}]; no rule is applied from it");
      continue;
    }
    if (key.size() <= name.size() || !key.starts_with(name) || key[name.size()] != '.') continue;
    const std::string_view rest = std::string_view(key).substr(name.size() + 1);
    const size_t dot = rest.find('.');
    const std::string_view index = rest.substr(0, dot);
    const std::optional<uint64_t> number = item_number(index);
    if (!number) {
      problem("has " + quote(key) + ", whose " + quote(index) +
              " is not an item number; it is ignored");
      continue;
    }
    if (dot == std::string_view::npos) {
      problem("item " + std::string(index) + " is " + quote(value) +
              ", not a map of labels (e.g. {app: trainer}); the item is ignored");
      items[*number] = std::nullopt;
      continue;
    }
    // The rest is the label key whole: label keys have dots of their own
    // (app.kubernetes.io/name).
    auto& item = items[*number];
    if (!item) item.emplace();
    item->labels.insert_or_assign(std::string(rest.substr(dot + 1)), value);
  }
  std::vector<ExclusiveRule> rules;
  uint64_t next = 0;
  for (auto& [number, item] : items) {
    // An empty map writes no key: its number is missing between the others.
    for (; next < number; ++next)
      problem("item " + std::to_string(next) + " gives no labels; the item is ignored");
    next = number + 1;
    if (item && !item->labels.empty()) rules.push_back(std::move(*item));
  }
  return rules;
}

void ExclusiveCards::add(const std::vector<uint32_t>& rules, const std::vector<size_t>& cards) {
  const std::vector<size_t> each = once_each(cards);
  for (const uint32_t rule : rules) {
    if (holders_.size() <= rule) holders_.resize(rule + size_t{1});
    std::vector<uint32_t>& count = holders_[rule];
    for (const size_t card : each) {
      if (count.size() <= card) count.resize(card + 1, 0);
      ++count[card];
    }
  }
}

void ExclusiveCards::remove(const std::vector<uint32_t>& rules, const std::vector<size_t>& cards) {
  const std::vector<size_t> each = once_each(cards);
  for (const uint32_t rule : rules) {
    if (holders_.size() <= rule) continue;
    std::vector<uint32_t>& count = holders_[rule];
    for (const size_t card : each)
      if (card < count.size() && count[card] > 0) --count[card];
  }
}

std::vector<bool> ExclusiveCards::reserved_for(const std::vector<uint32_t>& rules) const {
  std::vector<bool> mask;
  for (const uint32_t rule : rules) {
    if (rule >= holders_.size()) continue;
    const std::vector<uint32_t>& count = holders_[rule];
    for (size_t card = 0; card < count.size(); ++card) {
      if (count[card] == 0) continue;
      if (mask.size() <= card) mask.resize(card + 1, false);
      mask[card] = true;
    }
  }
  return mask;
}

bool ExclusiveCards::holds(uint32_t rule, size_t card) const {
  return rule < holders_.size() && card < holders_[rule].size() && holders_[rule][card] > 0;
}

void RememberedPlacements::remember(const std::string& pod, Placement placement) {
  entries_.insert_or_assign(pod, std::move(placement));
}

const RememberedPlacements::Placement* RememberedPlacements::keep(const std::string& pod,
                                                                  std::string_view node) {
  if (const auto it = kept_.find(pod); it != kept_.end())
    return it->second.node == node ? &it->second : nullptr;
  const auto it = entries_.find(pod);
  if (it == entries_.end() || it->second.node != node) return nullptr;
  auto kept = kept_.insert_or_assign(pod, std::move(it->second)).first;
  entries_.erase(it);
  return &kept->second;
}

void RememberedPlacements::finish_session_open() {
  entries_ = std::move(kept_);
  kept_.clear();
}

}  // namespace scoria_deviceshare
