// capacity's hierarchical queues (Volcano's enableHierarchy): queues form a
// tree through spec.parent under the queue named "root" (or, when the
// cluster has none, under a virtual root holding the whole cluster). Building the tree rolls
// every queue's accounts up to its ancestors and settles each child's
// deserved share (at least its guarantee), capability (the parent's where
// unset) and real capability (what the parent can give once the siblings'
// guarantees are set aside, capped by its own capability).
#ifndef SCORIA_CAPACITY_QUEUE_TREE_H
#define SCORIA_CAPACITY_QUEUE_TREE_H

#include <scoria/scoria.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "queue_ledger.h"

namespace capacity {

// Links the ledger's queues into a tree and settles their shares. Returns
// an error text, and leaves the ledger flat, when the hierarchy cannot be
// used: an unknown parent, a cycle, or a job in a queue that has children.
std::optional<std::string> build_queue_tree(ledger::QueueLedger& book);

// The queues through which two leaves are ordered, as Volcano's capacity
// orders hierarchical queues: their ancestors (or themselves) just below
// the deepest ancestor they share.
std::pair<size_t, size_t> order_heads(const ledger::QueueLedger& book, size_t l, size_t r);

// Volcano's "root" queue: the top of its tree, never weighed for reclaim.
bool is_root(const ledger::QueueAccount& a);

// q's ancestor `depth` levels up (1: its parent), unless there is none or
// it is the root queue.
std::optional<size_t> ancestor_at(const ledger::QueueLedger& book, size_t q, int depth);

// Whether l and r share an ancestor, other than the root, within `levels`
// levels of each (Volcano's sharesAnyNonRootAncestorWithinLevel).
bool share_ancestor_within(const ledger::QueueLedger& book, size_t l, size_t r, int levels);

// How deep the deepest ancestor (or self) shared by l and r lies: 0 for the
// top, -1 if none (both under the virtual root).
int shared_level(const ledger::QueueLedger& book, size_t l, size_t r);

}  // namespace capacity

#endif  // SCORIA_CAPACITY_QUEUE_TREE_H
