// Where a field sits in its document, as messages name it:
// spec.containers[0].resources.requests.cpu, with keys that are not plain
// words bracketed: metadata.annotations[volcano.sh/preemptable].
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace scoria::input {

/// Built on the stack while descending and rendered only for a message, so
/// reading a field costs no allocation. A FieldPath points at its parent:
/// keep named paths one level below another named path (temporaries in a
/// call's arguments are fine).
class FieldPath {
 public:
  FieldPath() = default;
  FieldPath field(std::string_view key) const { return FieldPath(this, key, kNoIndex); }
  FieldPath index(size_t i) const { return FieldPath(this, {}, i); }
  bool empty() const { return parent_ == nullptr; }
  std::string str() const {
    std::string out;
    append(out);
    return out;
  }

  /// Appends one step to a rendered path.
  static void append_key(std::string& out, std::string_view key);
  static void append_index(std::string& out, size_t i);

 private:
  static constexpr size_t kNoIndex = static_cast<size_t>(-1);
  FieldPath(const FieldPath* parent, std::string_view key, size_t index)
      : parent_(parent), key_(key), index_(index) {}
  void append(std::string& out) const;

  const FieldPath* parent_ = nullptr;
  std::string_view key_;
  size_t index_ = kNoIndex;
};

}  // namespace scoria::input
