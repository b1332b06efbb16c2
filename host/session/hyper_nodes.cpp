#include "session/hyper_nodes.h"

#include <algorithm>
#include <regex>
#include <unordered_map>

#include "model/label_selector.h"

namespace scoria::session {

namespace {

constexpr std::string_view kTopName = "<cluster-top-hypernode>";

using Member = model::HyperNodeMember;

// Volcano's GetMembers: an empty labelMatch selects nothing.
bool labels_match(const model::LabelSelector& s, const std::map<std::string, std::string>& labels) {
  return !s.empty() && model::selects(s, labels);
}

}  // namespace

HyperNodeTopology::HyperNodeTopology(std::span<const model::HyperNode* const> defined,
                                     std::span<const model::Node* const> nodes) {
  views_.resize(defined.size() + 1);
  specs_.assign(defined.begin(), defined.end());
  specs_.push_back(nullptr);
  int32_t top_tier = 1;
  std::unordered_map<std::string_view, uint32_t> hyper_index;
  for (size_t i = 0; i < defined.size(); ++i) {
    views_[i].name = defined[i]->name;
    views_[i].tier = defined[i]->tier;
    views_[i].tier_name = defined[i]->tier_name;
    hyper_index.emplace(defined[i]->name, static_cast<uint32_t>(i));
    top_tier = std::max(top_tier, defined[i]->tier + 1);
  }
  HyperNodeView& cluster = views_.back();
  cluster.name = kTopName;
  cluster.tier = top_tier;
  cluster.nodes.resize(nodes.size());
  for (uint32_t n = 0; n < nodes.size(); ++n) cluster.nodes[n] = n;
  if (defined.empty()) return;  // the usual cluster: nothing more to resolve

  std::unordered_map<std::string_view, uint32_t> node_index;
  for (uint32_t n = 0; n < nodes.size(); ++n) node_index.emplace(nodes[n]->name, n);
  for (uint32_t h = 0; h < defined.size(); ++h) {
    const model::HyperNode& spec = *defined[h];
    for (const Member& m : spec.members) {
      const bool node = m.type == Member::Type::Node;
      if (m.match == Member::Match::Exact) {
        if (node) {
          if (const auto it = node_index.find(m.name); it != node_index.end())
            views_[h].nodes.push_back(it->second);
          else
            problems_.push_back("HyperNode " + spec.name + ": member Node " + m.name +
                                " does not exist; it is left out");
          continue;
        }
        const auto it = hyper_index.find(m.name);
        if (it == hyper_index.end()) {
          problems_.push_back("HyperNode " + spec.name + ": member HyperNode " + m.name +
                              " does not exist; it is left out");
          continue;
        }
        HyperNodeView& child = views_[it->second];
        if (child.parent != kNoHyperNode || it->second == h) {
          problems_.push_back("HyperNode " + spec.name + ": member HyperNode " + m.name +
                              (it->second == h ? std::string(" is itself")
                                               : " is already a member of " +
                                                     std::string(views_[child.parent].name)) +
                              "; a HyperNode has one parent, so it is left out");
          continue;
        }
        child.parent = h;
        views_[h].children.push_back(it->second);
      } else if (m.match == Member::Match::Regex) {
        // Go's MatchString finds the pattern anywhere in the name.
        const std::regex re(m.pattern);
        for (uint32_t n = 0; n < nodes.size(); ++n)
          if (std::regex_search(nodes[n]->name, re)) views_[h].nodes.push_back(n);
      } else {
        for (uint32_t n = 0; n < nodes.size(); ++n)
          if (labels_match(m.labels, nodes[n]->labels)) views_[h].nodes.push_back(n);
      }
    }
  }
  std::vector<uint8_t> state(views_.size() - 1, 0);
  for (uint32_t h = 0; h + 1 < views_.size(); ++h) resolve_nodes(h, state);
  for (uint32_t h = 0; h + 1 < views_.size(); ++h) {
    std::sort(views_[h].children.begin(), views_[h].children.end());
    if (views_[h].parent == kNoHyperNode) {
      views_[h].parent = top();
      cluster.children.push_back(h);
    }
  }
}

// Real nodes of `h`: its own and every descendant's, each once.
void HyperNodeTopology::resolve_nodes(uint32_t h, std::vector<uint8_t>& state) {
  if (state[h] == 2) return;
  state[h] = 1;
  HyperNodeView& v = views_[h];
  std::vector<uint32_t> kept;
  for (uint32_t c : v.children) {
    if (state[c] == 1) {
      problems_.push_back("HyperNode " + std::string(v.name) + ": member HyperNode " +
                          std::string(views_[c].name) + " contains it (a cycle); it is left out");
      views_[c].parent = kNoHyperNode;
      continue;
    }
    resolve_nodes(c, state);
    kept.push_back(c);
    v.nodes.insert(v.nodes.end(), views_[c].nodes.begin(), views_[c].nodes.end());
  }
  v.children = std::move(kept);
  std::sort(v.nodes.begin(), v.nodes.end());
  v.nodes.erase(std::unique(v.nodes.begin(), v.nodes.end()), v.nodes.end());
  state[h] = 2;
}

uint32_t HyperNodeTopology::find(std::string_view name) const {
  for (uint32_t h = 0; h < views_.size(); ++h)
    if (views_[h].name == name) return h;
  return kNoHyperNode;
}

bool HyperNodeTopology::holds(uint32_t h, uint32_t node) const {
  const auto& n = views_[h].nodes;
  return std::binary_search(n.begin(), n.end(), node);
}

int32_t HyperNodeTopology::tier_of_name(std::string_view tier_name) const {
  for (const HyperNodeView& v : views_)
    if (!tier_name.empty() && v.tier_name == tier_name) return v.tier;
  return -1;
}

}  // namespace scoria::session
