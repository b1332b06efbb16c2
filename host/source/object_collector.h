// The objects of one read, collected across its files kind by kind, each
// with where it came from; a kind and name used twice is refused once all
// are in, naming both places.
#pragma once

#include <array>
#include <set>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "decode/object_decoder.h"
#include "model/cluster_objects.h"

namespace scoria::source {

/// Where an object came from, for messages about it.
struct Origin {
  std::string_view file;  // empty: not read from a file (given before)
  int order = 0;          // which file of the read, from 1; 0: given before
  int doc = 0;
  int item = -1;  // index in a List's items, else -1
};

/// "FILE: document N (Kind name): field F: what", or without the file and
/// document for objects that came from elsewhere (`o` null or fileless).
std::string message_at(const Origin* o, std::string_view kind, const std::string& object,
                       std::string_view field, std::string_view what);
[[noreturn]] void fail_at(const Origin* o, std::string_view kind, const std::string& object,
                          std::string_view field, std::string_view what);

/// decode::Object's index of the alternative T.
template <class T, class... Ts>
constexpr size_t object_index(const std::variant<Ts...>*) {
  size_t i = 0;
  (void)((std::is_same_v<T, Ts> ? true : (++i, false)) || ...);
  return i;
}
template <class T>
inline constexpr size_t kObjectIndex = object_index<T>(static_cast<const decode::Object*>(nullptr));

/// Where in its file an object decoded from a run of documents came from.
struct Place {
  int doc = 0;
  int item = -1;               // index in a List's items, else -1
  bool never_preempt = false;  // PriorityClass preemptionPolicy: Never
};

/// The objects decoded from one run of documents (a slot of a read), kind
/// by kind in document order, each list beside its places. A run's objects
/// are decoded as decode::Decoded and moved into their kinds' lists when
/// its last document is in. A Decoded is as large as the largest kind, and
/// a read keeps every object of a cluster until it is collected: kept by
/// kind they take their own size, and a run's Decoded are freed for the
/// next run to reuse.
struct DecodedRun {
  model::ClusterObjects objects;
  std::array<std::vector<Place>, std::variant_size_v<decode::Object>> places;
  std::vector<decode::Decoded> pending;  // the documents not yet filed
  size_t documents = 0;                  // documents decoded so far

  /// Counts a document decoded into `pending` (or empty); once the run's
  /// `run_documents` are in, files them by kind.
  void document_done(size_t run_documents);
};

class Collector {
 public:
  /// `before`: objects already present, which new ones must not duplicate
  /// (null: none). It must outlive check_unique().
  explicit Collector(const model::ClusterObjects* before = nullptr) : before_(before) {}
  Collector(const Collector&) = delete;
  Collector& operator=(const Collector&) = delete;

  /// Takes the objects decoded from `file` (the next file of the read), its
  /// runs in document order; each run's lists are freed as they are taken.
  void add(std::vector<DecodedRun>& runs, std::string_view file);

  /// Throws InputError for the first object, in the order read, whose kind
  /// and name an earlier one (or one given before) has, naming both.
  void check_unique() const;

  model::ClusterObjects& objects() { return objects_; }
  /// Where each object of objects()'s list of T came from, index by index.
  template <class T>
  const std::vector<Origin>& origins() const {
    return origins_[kObjectIndex<T>];
  }
  /// The PriorityClasses whose preemptionPolicy is Never (the model has no
  /// field for it).
  const std::set<std::string>& never_preempt_classes() const { return never_preempt_; }

 private:
  const model::ClusterObjects* before_;
  model::ClusterObjects objects_;
  std::array<std::vector<Origin>, std::variant_size_v<decode::Object>> origins_;
  std::set<std::string> never_preempt_;
  int files_ = 0;
};

}  // namespace scoria::source
