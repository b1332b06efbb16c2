// Typed access to one object's tree, with messages of the form
//   <origin>: document <n> (<Kind> <ns/name>): field <path>: <what>; <fix>
// Every decoder reads through it, whichever source the object came from.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "input/field_path.h"
#include "input/node_tree.h"
#include "model/objects.h"

namespace scoria::decode {

using input::FieldPath;
using input::Node;
using Json = nlohmann::json;  // what a Volcano Job expands to

class FieldReader {
 public:
  FieldReader(std::string_view origin, int doc) : origin_(origin), doc_(doc) {}

  void set_kind(std::string kind) { kind_ = std::move(kind); }
  std::string_view origin() const { return origin_; }
  int doc() const { return doc_; }
  void set_object(std::string object) { object_ = std::move(object); }

  [[noreturn]] void fail(const FieldPath& at, std::string_view what) const;

  static bool present(const Node& n) { return !n.is_null(); }
  /// The value of `key` in `map` (a null value when absent or not a mapping).
  static const Node& get(const Node& map, std::string_view key);

  /// `n` itself when a mapping; an empty mapping when absent; else an error.
  const Node& mapping(const Node& n, const FieldPath& at) const;
  const Node& map_field(const Node& map, std::string_view key, const FieldPath& parent) const {
    return mapping(get(map, key), parent.field(key));
  }

  /// A scalar as text ("" when absent); a mapping or list is an error.
  std::string text(const Node& n, const FieldPath& at) const;
  std::string text_field(const Node& map, std::string_view key, const FieldPath& parent) const {
    return text(get(map, key), parent.field(key));
  }

  bool boolean(const Node& n, const FieldPath& at) const;
  std::optional<bool> bool_field(const Node& map, std::string_view key,
                                 const FieldPath& parent) const;

  int32_t int32(const Node& n, const FieldPath& at) const;
  std::optional<int32_t> int_field(const Node& map, std::string_view key,
                                   const FieldPath& parent) const;
  /// A whole number of 0 or more; `fallback` when absent.
  int32_t count_field(const Node& map, std::string_view key, const FieldPath& parent,
                      int32_t fallback) const;

  /// A map of strings (labels, annotations, nodeSelector).
  std::map<std::string, std::string> string_map(const Node& map, std::string_view key,
                                                const FieldPath& parent) const;

  /// An RFC 3339 time as milliseconds since the epoch; 0 when absent.
  int64_t timestamp(const Node& map, std::string_view key, const FieldPath& parent) const;

  /// A resource list in Scoria's units: cpu millicores, memory bytes, pods
  /// a count, others milli-units. Rounded up to whole units as Kubernetes'
  /// MilliValue()/Value() do, which is what Volcano counts with.
  model::ResourceList resources(const Node& n, const FieldPath& at) const;
  model::ResourceList resources_field(const Node& map, std::string_view key,
                                      const FieldPath& parent) const {
    return resources(get(map, key), parent.field(key));
  }

  /// Calls f(item, path) for each item of the list under `key`.
  template <class F>
  void each(const Node& map, std::string_view key, const FieldPath& parent, F&& f) const {
    const FieldPath at = parent.field(key);
    const Node& seq = get(map, key);
    if (!present(seq)) return;
    if (!seq.is_array())
      fail(at, "is " + describe(seq) + ", not a list; write it as a list of - items");
    const std::span<const Node> items = seq.items();
    for (size_t i = 0; i < items.size(); ++i) {
      const FieldPath item = at.index(i);
      f(items[i], item);
    }
  }

  /// Like each(), for a list of mappings.
  template <class F>
  void each_map(const Node& map, std::string_view key, const FieldPath& parent, F&& f) const {
    each(map, key, parent, [&](const Node& n, const FieldPath& at) { f(mapping(n, at), at); });
  }

  static std::string describe(const Node& n);
  static std::optional<int64_t> parse_rfc3339(std::string_view s);

 private:
  std::string_view origin_;
  int doc_;
  std::string kind_;
  std::string object_;
};

std::string quote(std::string_view s);

/// "(Pod work/job-0)": the object a message is about.
std::string object_label(std::string_view kind, std::string_view object);

}  // namespace scoria::decode
