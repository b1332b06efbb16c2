#include "hierarchy.h"

#include <scoria/scoria.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <utility>

namespace drf {

namespace {

// Splits "a/b/c" into its parts.
std::vector<std::string_view> split(std::string_view s) {
  std::vector<std::string_view> out;
  while (true) {
    const size_t slash = s.find('/');
    out.push_back(s.substr(0, slash));
    if (slash == std::string_view::npos) break;
    s.remove_prefix(slash + 1);
  }
  return out;
}

double weight_at(const std::vector<std::string_view>& weights, size_t i) {
  if (i >= weights.size()) return 1;
  const std::string text(weights[i]);
  char* end = nullptr;
  const double w = std::strtod(text.c_str(), &end);
  return end == text.c_str() || w < 1 ? 1 : w;  // as Volcano: below 1 reads as 1
}

}  // namespace

HierarchyTree::HierarchyTree(std::vector<double> total)
    : total_(std::move(total)), total_allocated_(total_.size(), 0) {
  nodes_.push_back(
      Node{"root", 1, -1, {}, std::vector<double>(total_.size(), 0), {}, 0, false, false});
}

int32_t HierarchyTree::child_named(int32_t node, std::string_view name) const {
  for (const int32_t c : nodes_[static_cast<size_t>(node)].children)
    if (nodes_[static_cast<size_t>(c)].name == name) return c;
  return -1;
}

void HierarchyTree::add_job(size_t job, std::string_view path, std::string_view weights,
                            std::span<const double> allocated, std::span<const double> request) {
  const auto parts = split(path);
  const auto ws = split(weights);
  int32_t at = 0;
  for (size_t i = 1; i < parts.size(); ++i) {
    int32_t next = child_named(at, parts[i]);
    if (next < 0) {
      next = static_cast<int32_t>(nodes_.size());
      nodes_.push_back(Node{std::string(parts[i]),
                            weight_at(ws, i),
                            at,
                            {},
                            std::vector<double>(total_.size(), 0),
                            {},
                            0,
                            false,
                            false});
      nodes_[static_cast<size_t>(at)].children.push_back(next);
    }
    at = next;
  }
  const auto leaf = static_cast<int32_t>(nodes_.size());
  nodes_.push_back(Node{"",
                        1,
                        at,
                        {},
                        std::vector<double>(allocated.begin(), allocated.end()),
                        std::vector<double>(request.begin(), request.end()),
                        0,
                        false,
                        true});
  nodes_[static_cast<size_t>(at)].children.push_back(leaf);
  if (job_leaf_.size() <= job) job_leaf_.resize(job + 1, -1);
  job_leaf_[job] = leaf;
  for (size_t d = 0; d < total_.size(); ++d) total_allocated_[d] += allocated[d];
}

void HierarchyTree::change(size_t job, std::span<const double> amount, double sign) {
  if (job >= job_leaf_.size() || job_leaf_[job] < 0) return;
  Node& leaf = nodes_[static_cast<size_t>(job_leaf_[job])];
  for (size_t d = 0; d < total_.size(); ++d) {
    leaf.allocated[d] += sign * amount[d];
    total_allocated_[d] += sign * amount[d];
  }
  update();
}

double HierarchyTree::dominant_share(std::span<const double> allocated) const {
  double share = 0;
  for (size_t d = 0; d < total_.size(); ++d)
    if (d != SCORIA_DIM_PODS && total_[d] > 0) share = std::max(share, allocated[d] / total_[d]);
  return share;
}

void HierarchyTree::update() {
  // A resource is in demand while the cluster still has some of it.
  std::vector<bool> demanding(total_.size());
  for (size_t d = 0; d < total_.size(); ++d) demanding[d] = total_allocated_[d] < total_[d];
  update(0, demanding);
}

void HierarchyTree::update(int32_t index, const std::vector<bool>& demanding) {
  Node& node = nodes_[static_cast<size_t>(index)];
  if (node.leaf) {
    node.share = dominant_share(node.allocated);
    // Saturated: holds all it asked for in some resource, or asks for one
    // nobody can give any more.
    node.saturated = false;
    for (size_t d = 0; d < total_.size() && !node.saturated; ++d) {
      if (d == SCORIA_DIM_PODS) continue;
      if (node.allocated[d] != 0 && node.request[d] != 0 && node.allocated[d] >= node.request[d])
        node.saturated = true;
      if (!demanding[d] && node.request[d] != 0) node.saturated = true;
    }
    return;
  }
  double mdr = 1;
  for (const int32_t c : node.children) {
    update(c, demanding);
    const Node& child = nodes_[static_cast<size_t>(c)];
    if (child.share != 0 && !child.saturated) mdr = std::min(mdr, dominant_share(child.allocated));
  }
  std::fill(node.allocated.begin(), node.allocated.end(), 0.0);
  bool saturated = true;
  for (const int32_t c : node.children) {
    const Node& child = nodes_[static_cast<size_t>(c)];
    if (!child.saturated) saturated = false;
    if (child.share == 0) continue;
    const double scale = child.saturated ? 1.0 : mdr / child.share;
    for (size_t d = 0; d < total_.size(); ++d) node.allocated[d] += child.allocated[d] * scale;
  }
  node.share = dominant_share(node.allocated);
  node.saturated = saturated;
}

double HierarchyTree::compare(std::string_view l, std::string_view r) const {
  const auto lp = split(l);
  const auto rp = split(r);
  int32_t ln = 0;
  int32_t rn = 0;
  const size_t depth = std::min(lp.size(), rp.size());
  for (size_t i = 0; i < depth; ++i) {
    const Node& a = nodes_[static_cast<size_t>(ln)];
    const Node& b = nodes_[static_cast<size_t>(rn)];
    if (!a.saturated && b.saturated) return -1;
    if (a.saturated && !b.saturated) return 1;
    const double la = a.share / a.weight;
    const double rb = b.share / b.weight;
    if (la != rb) return la - rb;
    if (i + 1 < depth) {
      ln = child_named(ln, lp[i + 1]);
      rn = child_named(rn, rp[i + 1]);
      // A queue without jobs has no node yet: nothing to tell them apart by.
      if (ln < 0 || rn < 0) return 0;
    }
  }
  return 0;
}

}  // namespace drf
