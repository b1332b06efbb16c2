#include "hypernode_gradient.h"

#include <algorithm>
#include <deque>
#include <map>

namespace scoria_nta {

std::vector<uint32_t> Tree::ancestors(uint32_t h) const {
  std::vector<uint32_t> out;
  for (uint32_t at = h; at != kNone && out.size() <= tier.size(); at = parent[at])
    out.push_back(at);
  return out;
}

uint32_t Tree::lca(uint32_t a, uint32_t b) const {
  if (a == kNone) return b;
  if (b == kNone) return a;
  const std::vector<uint32_t> up = ancestors(a);
  for (uint32_t at : ancestors(b))
    if (std::find(up.begin(), up.end(), at) != up.end()) return at;
  return kNone;
}

namespace {

// Volcano's getSearchRoot: the part of `root` the job may still use.
uint32_t search_root(const Tree& tree, uint32_t root, int32_t highest_tier, uint32_t allocated) {
  if (allocated == kNone) return root;
  uint32_t highest = kNone;
  for (uint32_t a : tree.ancestors(allocated)) {
    if (tree.tier[a] > highest_tier) break;
    highest = a;
  }
  if (highest == kNone) return kNone;
  const uint32_t meet = tree.lca(root, highest);
  if (meet == highest) return root;
  if (meet == root) return highest;
  return kNone;
}

}  // namespace

std::vector<Found> gradients(const Tree& tree, uint32_t root, int32_t highest_tier,
                             uint32_t allocated, const std::function<bool(uint32_t)>& fits) {
  const uint32_t start = search_root(tree, root, highest_tier, allocated);
  if (start == kNone) return {};
  std::map<int32_t, std::vector<uint32_t>> by_tier;
  std::vector<uint8_t> seen(tree.tier.size(), 0);
  std::deque<uint32_t> queue{start};
  seen[start] = 1;
  while (!queue.empty()) {
    const uint32_t h = queue.front();
    queue.pop_front();
    if (tree.tier[h] <= highest_tier && (allocated != kNone || fits(h)))
      by_tier[tree.tier[h]].push_back(h);
    for (uint32_t c : tree.children[h]) {
      if (seen[c] != 0) continue;
      seen[c] = 1;
      queue.push_back(c);
    }
  }
  std::vector<Found> out;
  uint32_t g = 0;
  for (const auto& [tier, list] : by_tier) {
    for (uint32_t h : list) out.push_back({h, g});
    ++g;
  }
  return out;
}

std::vector<Found> reverse_and_cap(std::span<const Found> found, size_t cap) {
  std::vector<Found> out;
  size_t end = found.size();
  uint32_t g = 0;
  while (end > 0 && cap > 0) {
    size_t begin = end;
    while (begin > 0 && found[begin - 1].gradient == found[end - 1].gradient) --begin;
    const size_t take = std::min(cap, end - begin);
    for (size_t i = end - take; i < end; ++i) out.push_back({found[i].hypernode, g});
    cap -= take;
    ++g;
    end = begin;
  }
  return out;
}

}  // namespace scoria_nta
