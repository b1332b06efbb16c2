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
             " has both jobs and child queues; jobs belong in leaf queues";
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

int compare_in_tree(ledger::QueueLedger& book, size_t l, size_t r) {
  const std::vector<size_t> lp = path_from_top(book, l);
  const std::vector<size_t> rp = path_from_top(book, r);
  const int level = shared_level(book, l, r);
  const size_t below = static_cast<size_t>(level + 1);
  const QueueAccount& la = book.accounts()[below < lp.size() ? lp[below] : l];
  const QueueAccount& ra = book.accounts()[below < rp.size() ? rp[below] : r];
  if (la.share != ra.share) return la.share < ra.share ? -1 : 1;
  return 0;
}

}  // namespace capacity
