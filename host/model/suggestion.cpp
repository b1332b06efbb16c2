#include "model/suggestion.h"

#include <algorithm>

namespace scoria::model {

namespace {

char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

size_t distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      const size_t cost = lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1;
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + cost});
      diagonal = above;
    }
  }
  return row[b.size()];
}

bool abbreviates(std::string_view key, std::string_view word) {
  if (key.size() < 3 || key.size() * 3 < word.size() || lower(key[0]) != lower(word[0]))
    return false;
  size_t i = 0;
  for (size_t j = 0; i < key.size() && j < word.size(); ++j)
    if (lower(key[i]) == lower(word[j])) ++i;
  return i == key.size();
}

}  // namespace

std::optional<std::string> closest(std::string_view key,
                                   const std::vector<std::string>& candidates) {
  const std::string* best = nullptr;
  size_t best_distance = 0;
  for (const auto& c : candidates) {
    const size_t d = distance(key, c);
    if (d > std::max<size_t>(2, key.size() / 3) && !abbreviates(key, c)) continue;
    if (best == nullptr || d < best_distance) {
      best = &c;
      best_distance = d;
    }
  }
  if (best == nullptr) return std::nullopt;
  return *best;
}

}  // namespace scoria::model
