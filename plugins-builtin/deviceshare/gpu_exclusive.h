// Volcano's GPU exclusivity (deviceshare.GPUExclusiveRules, gpuexclusive.go):
// each rule is a map of pod labels; a pod carrying every label of a rule
// must not share a physical vGPU card with another pod matching the same
// rule. Pods matching different rules, or none, share cards as usual. The
// cards a rule's pods hold on a node are, for a pod matching that rule, as
// full as a card can be. Plain C++, no SDK.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace scoria_deviceshare {

inline constexpr std::string_view kGpuExclusiveRulesArgument = "deviceshare.GPUExclusiveRules";

/// One rule: label key -> value, every one of which a pod must carry.
struct ExclusiveRule {
  std::map<std::string, std::string, std::less<>> labels;
};

/// The rules of deviceshare.GPUExclusiveRules from the plugin's flattened
/// arguments (`args`: every key and value the plugin was given; the rules
/// arrive as deviceshare.GPUExclusiveRules.<item>.<label key>), in item
/// order. What cannot be read as a rule (an item that is not a map, the
/// argument written as one text, an item without labels) is left out, with
/// one line in *problems saying which item and what is wrong.
std::vector<ExclusiveRule> parse_exclusive_rules(
    const std::vector<std::pair<std::string, std::string>>& args,
    std::vector<std::string>* problems);

/// Indices of the rules whose every label `label(key)` (a pod's label, or
/// nullopt when the pod has none by that key) carries with the same value,
/// ascending.
template <class LabelOf>
std::vector<uint32_t> matching_rules(const std::vector<ExclusiveRule>& rules, LabelOf&& label) {
  std::vector<uint32_t> out;
  for (size_t i = 0; i < rules.size(); ++i) {
    bool all = true;
    for (const auto& [key, value] : rules[i].labels) {
      const std::optional<std::string_view> has = label(std::string_view(key));
      if (!has || *has != value) {
        all = false;
        break;
      }
    }
    if (all) out.push_back(static_cast<uint32_t>(i));
  }
  return out;
}

/// Which cards of one node each rule's pods hold, counted per pod so that a
/// card stays reserved until the last pod of the rule on it leaves.
class ExclusiveCards {
 public:
  /// A pod matching `rules` holds `cards` (indices in VgpuNode::cards()),
  /// or no longer does. A card listed twice counts once.
  void add(const std::vector<uint32_t>& rules, const std::vector<size_t>& cards);
  void remove(const std::vector<uint32_t>& rules, const std::vector<size_t>& cards);

  /// The cards a pod matching `rules` may not take, as a mask by card index
  /// (sized to the highest such card); empty when it may take any.
  std::vector<bool> reserved_for(const std::vector<uint32_t>& rules) const;

  /// Whether some pod of rule `rule` holds card `card`.
  bool holds(uint32_t rule, size_t card) const;

 private:
  // holders_[rule][card]: how many of the rule's pods hold the card.
  std::vector<std::vector<uint32_t>> holders_;
};

/// The cards this plugin chose for pods matching a rule, kept across
/// sessions until the pod no longer stands on that node: a pod bound but
/// seen on its node without its cards' annotation still holds them for its
/// rules (Volcano's persistedGPUs).
class RememberedPlacements {
 public:
  struct Placement {
    std::string node;
    std::vector<std::string>
        uuids;                    // the cards, by UUID: indices may move if the node re-registers
    std::vector<uint32_t> rules;  // the rules the pod matched when placed
  };

  /// What was chosen for `pod` on `node` (replacing what was remembered).
  void remember(const std::string& pod, Placement placement);

  /// Session open, pod by pod on their nodes: keeps what is remembered for
  /// `pod` when it is on `node` and returns it; nullptr when nothing is.
  /// Entries no call keeps are dropped by the next finish_session_open().
  const Placement* keep(const std::string& pod, std::string_view node);
  void finish_session_open();

  size_t size() const { return entries_.size(); }

 private:
  std::unordered_map<std::string, Placement> entries_;  // by pod
  std::unordered_map<std::string, Placement> kept_;     // during session open
};

}  // namespace scoria_deviceshare
