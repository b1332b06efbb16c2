// Answers of node hooks that plugins declared pure (SDK 1.7,
// on_cache_policy), shared by the tasks of one equivalence class for one
// session: a node's answer stands until that node changes. The host bumps
// a node's generation whenever a task joins or leaves it or a task on it
// changes status; an answer recorded under an older generation is asked
// again. Its storage serves session after session (SessionMemory): reset()
// forgets every answer and keeps the arrays of the classes last asked about.
#pragma once

#include <cstdint>
#include <deque>
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
    // Allocate's choice for the class (NodeSearch::select_node): made on its
    // second call (`has_choices`), then kept current from the nodes changed
    // since `seen`.
    uint32_t selects = 0;
    bool has_choices = false;
    ChoiceIndex choices;
    size_t seen = 0;  // changed() entries the choices reflect
    // VolumeBinder::epoch() the predicate answers of a class whose tasks
    // read the volumes placements took were made under.
    uint64_t volume_epoch = 0;
    // For tasks that claim devices: DeviceAllocator::epoch() the answers
    // were made under, and the meaning of the claims they were made for
    // (tasks with another meaning take the plain path).
    uint64_t device_epoch = 0;
    uint32_t device_meaning = 0;

    /// Forgets the predicate answers and the choices made from them.
    void forget_predicates() {
      predicates[0].clear();
      predicates[1].clear();
      has_choices = false;
      seen = 0;
    }

    /// Knows nothing any more; keeps its arrays' storage.
    void forget() {
      policy_known = false;
      policy = 0;
      predicates[0].clear();
      predicates[1].clear();
      scores.clear();
      selects = 0;
      has_choices = false;
      seen = 0;
      volume_epoch = 0;
      device_epoch = 0;
      device_meaning = 0;
    }
  };

  EquivalenceCache() = default;
  explicit EquivalenceCache(size_t nodes) { reset(nodes); }

  /// Nothing known, for a session over `nodes` nodes.
  void reset(size_t nodes) {
    generations_.assign(nodes, 1);
    changed_.clear();
    indexes_left_ = kIndexBytes / ChoiceIndex::bytes_for(nodes);
    class_at_.clear();
    for (size_t i = 0; i < used_; ++i) classes_[i].forget();
    used_ = 0;
    // The arrays of a few classes are kept: a session that asked about
    // thousands would otherwise hold on to what they took.
    if (classes_.size() > kKeptClasses) classes_.resize(kKeptClasses);
  }

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
  Class& of(uint32_t equivalence) {
    const auto [it, fresh] = class_at_.try_emplace(equivalence, nullptr);
    if (fresh) {
      if (used_ == classes_.size()) classes_.emplace_back();
      it->second = &classes_[used_++];
    }
    return *it->second;
  }

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
  static constexpr size_t kKeptClasses = 64;
  size_t indexes_left_ = 0;
  // The classes asked about are the first used_ (a deque: they never move).
  std::deque<Class> classes_;
  size_t used_ = 0;
  std::unordered_map<uint32_t, Class*> class_at_;
};

}  // namespace scoria::session
