// labelSelector and fieldSelector as the API server reads them in lists and
// watches: equality (=, ==, !=), sets (in, notin), existence (k, !k) for
// labels; =, ==, != on the fields each kind supports.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace scoria::api {

class LabelSelector {
 public:
  /// Throws ApiError (400) naming what does not parse.
  static LabelSelector parse(std::string_view text);
  bool matches(const nlohmann::json& object) const;
  bool empty() const { return requirements_.empty(); }

 private:
  enum class Op { Equals, NotEquals, In, NotIn, Exists, DoesNotExist };
  struct Requirement {
    std::string key;
    Op op;
    std::vector<std::string> values;
  };
  std::vector<Requirement> requirements_;
};

class FieldSelector {
 public:
  /// `kind` decides which fields may be selected (metadata.name and
  /// metadata.namespace always; spec.nodeName, status.phase and
  /// spec.schedulerName for pods, spec.unschedulable for nodes, ...).
  static FieldSelector parse(std::string_view text, std::string_view kind);
  bool matches(const nlohmann::json& object) const;
  bool empty() const { return terms_.empty(); }

 private:
  struct Term {
    std::string field;
    bool equals;
    std::string value;
  };
  std::vector<Term> terms_;
};

/// What of `object` the selectors of any kind read (metadata.name,
/// metadata.namespace, metadata.labels and every selectable field): they
/// match it as they match the whole object, which need not be kept.
nlohmann::json selectable_part(const nlohmann::json& object);

}  // namespace scoria::api
