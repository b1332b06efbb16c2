#include "queue_tree.h"

#include <scoria/scoria.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace capacity {

namespace {

using ledger::QueueAccount;
using ledger::Vec;

constexpr std::string_view kRootQueue = "root";
constexpr double kUnlimited = std::numeric_limits<double>::infinity();

// Settles the children of `parent_real` / `parent_capability` (the virtual
// root when `parent` is -1), then recurses.
void settle(ledger::QueueLedger& book, int32_t parent, const Vec& parent_real,
            const Vec& parent_capability) {
  const size_t dims = book.dims();
  std::vector<size_t> children;
  for (size_t q = 0; q < book.accounts().size(); ++q)
    if (book.accounts()[q].parent == parent) children.push_back(q);
  Vec total_guarantee(dims, 0);
  for (const size_t c : children) {
    QueueAccount& a = book.accounts()[c];
    for (size_t d = 0; d < dims; ++d) {
      a.deserved[d] = std::max(a.deserved[d], a.guarantee[d]);
      total_guarantee[d] += a.guarantee[d];
      if (std::isinf(a.capability[d])) a.capability[d] = parent_capability[d];
    }
  }
  for (const size_t c : children) {
    QueueAccount& a = book.accounts()[c];
    for (size_t d = 0; d < dims; ++d)
      a.real_capability[d] = std::min(
          std::max(0.0, parent_real[d] - total_guarantee[d]) + a.guarantee[d], a.capability[d]);
  }
  for (const size_t c : children) {
    QueueAccount& a = book.accounts()[c];
    if (a.name == kRootQueue && parent == -1) {
      // The root's deserved and guarantee are its children's.
      Vec deserved(dims, 0);
      Vec guarantee(dims, 0);
      for (const QueueAccount& child : book.accounts())
        if (child.parent == static_cast<int32_t>(c))
          for (size_t d = 0; d < dims; ++d) {
            deserved[d] += std::max(child.deserved[d], child.guarantee[d]);
            guarantee[d] += child.guarantee[d];
          }
      a.deserved = deserved;
      a.guarantee = guarantee;
      a.real_capability = a.capability;
    }
    settle(book, static_cast<int32_t>(c), a.real_capability, a.capability);
  }
}

std::vector<size_t> path_from_top(const ledger::QueueLedger& book, size_t q) {
  std::vector<size_t> path = book.ancestors(q);
  std::reverse(path.begin(), path.end());
  path.push_back(q);
  return path;
}

}  // namespace

std::optional<std::string> build_queue_tree(ledger::QueueLedger& book) {
  const auto accounts = book.accounts();
  std::optional<size_t> root;
  for (size_t q = 0; q < accounts.size(); ++q)
    if (accounts[q].name == kRootQueue) root = q;
  std::vector<int32_t> parents(accounts.size(), -1);
  for (size_t q = 0; q < accounts.size(); ++q) {
    if (root && q == *root) continue;
    const scoria_queue_info qi = scoria::info(accounts[q].queue);
    const std::string_view parent = scoria::view(qi.parent);
    const std::string_view wanted = parent.empty() ? kRootQueue : parent;
    const auto it = std::find_if(accounts.begin(), accounts.end(),
                                 [&](const QueueAccount& a) { return a.name == wanted; });
    if (it == accounts.end()) {
      if (parent.empty()) continue;  // under the virtual root
      return "queue " + std::string(accounts[q].name) + " names an unknown parent " +
             std::string(parent);
    }
    parents[q] = static_cast<int32_t>(it - accounts.begin());
  }
  // Cycles: following parents from any queue must end within n steps.
  for (size_t q = 0; q < accounts.size(); ++q) {
    int32_t p = parents[q];
    for (size_t steps = 0; p >= 0; ++steps, p = parents[static_cast<size_t>(p)])
      if (steps > accounts.size())
        return "the parents of queue " + std::string(accounts[q].name) + " form a cycle";
  }
  for (size_t q = 0; q < accounts.size(); ++q) {
    if (!accounts[q].has_jobs) continue;
    const bool has_children =
        std::find(parents.begin(), parents.end(), static_cast<int32_t>(q)) != parents.end();
    if (has_children)
      return "queue " + std::string(accounts[q].name) +
             " has jobs but is not a leaf queue (it has child queues); with enableHierarchy, "
             "jobs belong in leaf queues";
  }
  book.roll_up(parents);
  // Under the virtual root lies the whole cluster; a "root" queue without a
  // capability is unlimited, as in Volcano.
  const Vec unlimited(book.dims(), kUnlimited);
  settle(book, -1, book.total(), unlimited);
  for (QueueAccount& a : book.accounts()) ledger::QueueLedger::update_share(a);
  return std::nullopt;
}

int shared_level(const ledger::QueueLedger& book, size_t l, size_t r) {
  const std::vector<size_t> lp = path_from_top(book, l);
  const std::vector<size_t> rp = path_from_top(book, r);
  int level = -1;
  for (size_t i = 0; i < lp.size() && i < rp.size() && lp[i] == rp[i]; ++i)
    level = static_cast<int>(i);
  return level;
}

std::pair<size_t, size_t> order_heads(const ledger::QueueLedger& book, size_t l, size_t r) {
  const std::vector<size_t> lp = path_from_top(book, l);
  const std::vector<size_t> rp = path_from_top(book, r);
  const size_t below = static_cast<size_t>(shared_level(book, l, r) + 1);
  return {below < lp.size() ? lp[below] : l, below < rp.size() ? rp[below] : r};
}

bool is_root(const QueueAccount& a) { return a.parent == -1 && a.name == kRootQueue; }

std::optional<size_t> ancestor_at(const ledger::QueueLedger& book, size_t q, int depth) {
  if (depth <= 0) return std::nullopt;
  const std::vector<size_t> up = book.ancestors(q);
  const auto at = static_cast<size_t>(depth - 1);
  if (at >= up.size() || is_root(book.accounts()[up[at]])) return std::nullopt;
  return up[at];
}

bool share_ancestor_within(const ledger::QueueLedger& book, size_t l, size_t r, int levels) {
  const auto within = [&](size_t q) {
    std::vector<size_t> up = book.ancestors(q);
    if (up.size() > static_cast<size_t>(std::max(levels, 0)))
      up.resize(static_cast<size_t>(levels));
    return up;
  };
  const std::vector<size_t> lu = within(l);
  const std::vector<size_t> ru = within(r);
  for (const size_t a : lu)
    if (!is_root(book.accounts()[a]) && std::find(ru.begin(), ru.end(), a) != ru.end()) return true;
  return false;
}

}  // namespace capacity
