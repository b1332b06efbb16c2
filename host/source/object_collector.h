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

class Collector {
 public:
  /// `before`: objects already present, which new ones must not duplicate
  /// (null: none). It must outlive check_unique().
  explicit Collector(const model::ClusterObjects* before = nullptr) : before_(before) {}
  Collector(const Collector&) = delete;
  Collector& operator=(const Collector&) = delete;

  /// Takes the objects decoded from `file` (the next file of the read), in
  /// document order; the chunks are emptied as they go.
  void add(std::vector<std::vector<decode::Decoded>>& parsed, std::string_view file);

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
