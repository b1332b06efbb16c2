// Answers of node hooks that plugins declared pure (SDK 1.7,
// on_cache_policy), shared by the tasks of one equivalence class for one
// session: a node's answer stands until that node changes. The host bumps
// a node's generation whenever a task joins or leaves it or a task on it
// changes status; an answer recorded under an older generation is asked
// again.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

#include "session/choice_index.h"

namespace scoria::session {

class EquivalenceCache {
 public:
  /// A predicate answer: passed, or the reason it did not (0 when it did).
  struct Predicate {
    uint32_t generation = 0;  // 0: never asked
    uint32_t reason = 0;
    uint8_t pass = 0;
  };
  struct Score {
    uint32_t generation = 0;  // 0: never asked
    double score = 0;
  };
  /// What is known of one class.
  struct Class {
    bool policy_known = false;
    uint32_t policy = 0;  // SCORIA_CACHE_* every relevant plugin declared
    // By node index; sized on first use. Index 1: with the host's
    // resource check, 0: without.
    std::vector<Predicate> predicates[2];
    std::vector<Score> scores;
    // Allocate's choice for the class (Session::select_node): made on its
    // second call, then kept current from the nodes changed since `seen`.
    uint32_t selects = 0;
    std::optional<ChoiceIndex> choices;
    size_t seen = 0;  // changed() entries the choices reflect
  };

  explicit EquivalenceCache(size_t nodes)
      : generations_(nodes, 1), indexes_left_(kIndexBytes / ChoiceIndex::bytes_for(nodes)) {}

  /// Whether one more class may have a ChoiceIndex this session (and counts
  /// it): they take about 40 bytes a node each, and a session with
  /// thousands of alike gangs on thousands of nodes would otherwise hold
  /// gigabytes. The classes beyond are answered by the calls, alike.
  bool take_index_budget() {
    if (indexes_left_ == 0) return false;
    --indexes_left_;
    return true;
  }

  uint32_t generation(uint32_t node) const { return generations_[node]; }
  void node_changed(uint32_t node) {
    ++generations_[node];
    changed_.push_back(node);
  }
  /// Every node change of the session, in order (a node once per change).
  std::span<const uint32_t> changed() const { return changed_; }

  /// The class numbered `equivalence` (TaskViews::equivalence, not 0).
  Class& of(uint32_t equivalence) { return classes_[equivalence]; }

  /// The answers of `klass` by node, sized to the session's nodes.
  std::vector<Predicate>& predicates(Class& klass, bool resources) {
    std::vector<Predicate>& v = klass.predicates[resources ? 1 : 0];
    if (v.empty()) v.resize(generations_.size());
    return v;
  }
  std::vector<Score>& scores(Class& klass) {
    if (klass.scores.empty()) klass.scores.resize(generations_.size());
    return klass.scores;
  }

 private:
  std::vector<uint32_t> generations_;  // by node index; starts at 1
  std::vector<uint32_t> changed_;
  static constexpr size_t kIndexBytes = size_t{128} << 20;  // for all ChoiceIndexes
  size_t indexes_left_;
  std::unordered_map<uint32_t, Class> classes_;
};

}  // namespace scoria::session
