// The structured allocator's search on one node, as
// k8s.io/dynamic-resource-allocation/structured does it: claim after claim,
// request after request (a firstAvailable request tries its alternatives in
// order), device after device, each candidate checked for being free, for
// its class's and request's CEL selectors, its taints, its pool's shared
// counters and the claim's constraints, backtracking until the first full
// solution. Pools are walked by driver and name, slices by name, devices in
// their slice's order, so the same input always gives the same devices.
#include <algorithm>

#include "model/node_selector.h"
#include "plugin/reason_table.h"
#include "session/device_allocation.h"
#include "session/session.h"

namespace scoria::session {

namespace {

// A bound on one search's steps, as Kubernetes bounds a Filter call's time:
// past it the node is refused.
constexpr uint64_t kMaxSteps = 1'000'000;

bool tolerates(const model::DeviceToleration& t, const model::DeviceTaint& taint) {
  if (t.effect != 0 && t.effect != static_cast<uint32_t>(taint.effect)) return false;
  if (!t.key.empty() && t.key != taint.key) return false;
  if (t.op == model::SelectorOp::Exists) return true;
  return t.value == taint.value;
}

bool same(const model::DeviceAttribute& a, const model::DeviceAttribute& b) {
  return a.value == b.value;
}

const model::DeviceAttribute* attribute(const model::Device& d, const std::string& name) {
  const auto it = d.attributes.find(name);
  return it == d.attributes.end() ? nullptr : &it->second;
}

}  // namespace

// One search: the claims to allocate on one node, and what is chosen so far.
class DeviceAllocator::Search {
 public:
  Search(const DeviceAllocator& a, const Prepared& p, std::span<const uint32_t> devices,
         std::vector<uint32_t> claims, std::vector<Chosen>* chosen, bool future)
      : a_(a),
        p_(p),
        devices_(devices),
        claims_(std::move(claims)),
        chosen_(*chosen),
        future_(future) {
    held_.resize(claims_.size());
    for (size_t i = 0; i < claims_.size(); ++i)
      held_[i].resize(p_.claims[claims_[i]].claim->spec.constraints.size());
  }

  bool run() { return next(0, 0, -1, 0); }
  /// Why the search failed where a reason says more than "cannot allocate".
  uint32_t error() const { return error_; }

 private:
  // What a constraint holds of the devices chosen for its claim so far.
  struct Held {
    std::vector<const model::DeviceAttribute*> values;
  };

  const Claim& claim_at(size_t ci) const { return p_.claims[claims_[ci]]; }

  // Claim `ci`, request `ri`, alternative `alt` (-1: not chosen yet), its
  // device `k`.
  bool next(size_t ci, size_t ri, int alt, int64_t k) {
    if (++steps_ > kMaxSteps) return false;
    if (ci == claims_.size()) return true;
    const Claim& c = claim_at(ci);
    if (ri == c.requests.size()) return next(ci + 1, 0, -1, 0);
    const Request& r = c.requests[ri];
    if (alt < 0) {
      for (size_t i = 0; i < r.asks.size(); ++i)
        if (next(ci, ri, static_cast<int>(i), 0)) return true;
      return false;
    }
    const Ask& ask = r.asks[static_cast<size_t>(alt)];
    const model::DeviceAsk& spec = *ask.spec;
    if (spec.mode == model::AllocationMode::All) return all(ci, ri, ask);
    if (k == spec.count) return next(ci, ri + 1, -1, 0);
    if (results(ci) + static_cast<size_t>(spec.count - k) > 32) return false;
    for (const uint32_t d : devices_) {
      if (!usable(ci, ask, d)) continue;
      if (!add(ci, ask, d, false)) continue;
      if (next(ci, ri, alt, k + 1)) return true;
      remove(ci);
    }
    return false;
  }

  // allocationMode All: every selectable device of the node's pools, each
  // of which must be free; none at all fails.
  bool all(size_t ci, size_t ri, const Ask& ask) {
    std::vector<uint32_t> every;
    for (const uint32_t d : devices_) {
      const Pool& pool = a_.pools_[a_.all_[d].pool];
      if (!pool.complete || !pool.invalid.empty()) {
        if (error_ == 0)
          error_ = plugin::intern_reason(
              "claim " + claim_at(ci).key + ", request " + ask.name +
              ": asks for all devices, but resource pool " + pool.driver + "/" + pool.name +
              (pool.invalid.empty() ? " is currently being updated" : " is currently invalid"));
        return false;
      }
      if (selectable(ask, d)) every.push_back(d);
    }
    if (every.empty() || results(ci) + every.size() > 32) return false;
    size_t added = 0;
    for (const uint32_t d : every) {
      if (!free_for(ci, ask, d) || !add(ci, ask, d, true)) break;
      ++added;
    }
    if (added == every.size() && next(ci, ri + 1, -1, 0)) return true;
    for (; added > 0; --added) remove(ci);
    return false;
  }

  size_t results(size_t ci) const {
    return static_cast<size_t>(std::count_if(
        chosen_.begin(), chosen_.end(), [&](const Chosen& c) { return c.claim == claims_[ci]; }));
  }

  bool usable(size_t ci, const Ask& ask, uint32_t d) {
    const Pool& pool = a_.pools_[a_.all_[d].pool];
    if (!pool.complete || !pool.invalid.empty()) return false;
    return free_for(ci, ask, d) && selectable(ask, d);
  }

  // Not held by another claim (an admin-access request may share a device
  // with other claims, not within its own).
  bool free_for(size_t ci, const Ask& ask, uint32_t d) const {
    if (ask.spec->admin_access)
      return std::none_of(chosen_.begin(), chosen_.end(),
                          [&](const Chosen& c) { return c.device == d && c.claim == claims_[ci]; });
    if (a_.taken(d, future_)) return false;
    return std::none_of(chosen_.begin(), chosen_.end(),
                        [&](const Chosen& c) { return c.device == d && !c.admin; });
  }

  // The class's and the request's selectors match (prepare() refused
  // the claim if one fails on any device).
  static bool selectable(const Ask& ask, uint32_t d) {
    return d < ask.selectors->matched.size() && ask.selectors->matched[d] == 1;
  }

  // Checks taints, counters and constraints; on success the device is
  // chosen (undone by remove()).
  bool add(size_t ci, const Ask& ask, uint32_t d, bool must) {
    const model::Device& device = *a_.all_[d].spec;
    for (const model::DeviceTaint& taint : device.taints)
      if (std::none_of(ask.spec->tolerations.begin(), ask.spec->tolerations.end(),
                       [&](const auto& t) { return tolerates(t, taint); }))
        return false;
    if (!device.consumes.empty() && !counters_allow(d)) return false;
    const model::DeviceClaimSpec& spec = claim_at(ci).claim->spec;
    size_t applied = 0;
    for (; applied < spec.constraints.size(); ++applied) {
      const model::DeviceConstraint& c = spec.constraints[applied];
      if (!applies(c, ask)) continue;
      const std::string& name =
          c.match_attribute.empty() ? c.distinct_attribute : c.match_attribute;
      const model::DeviceAttribute* v = attribute(device, name);
      std::vector<const model::DeviceAttribute*>& values = held_[ci][applied].values;
      bool ok = v != nullptr;
      if (ok && !c.match_attribute.empty())
        ok = values.empty() || same(*values.front(), *v);
      else if (ok)
        ok = std::none_of(values.begin(), values.end(),
                          [&](const auto* other) { return same(*other, *v); });
      if (!ok) break;
      values.push_back(v);
    }
    if (applied < spec.constraints.size()) {
      for (size_t i = 0; i < applied; ++i)
        if (applies(spec.constraints[i], ask)) held_[ci][i].values.pop_back();
      // An "All" request cannot leave a device out: the claim is wrong.
      if (must && error_ == 0) {
        const Device& dev = a_.all_[d];
        error_ = plugin::intern_reason("claim " + claim_at(ci).key + ", request " + ask.name +
                                       ": cannot add device " + dev.slice->driver + "/" +
                                       dev.slice->pool + "/" + device.name +
                                       " because a claim constraint would not be satisfied");
      }
      return false;
    }
    chosen_.push_back({claims_[ci], ask.name, d, ask.spec->admin_access});
    asks_.push_back(&ask);
    return true;
  }

  void remove(size_t ci) {
    const Ask& ask = *asks_.back();
    const model::DeviceClaimSpec& spec = claim_at(ci).claim->spec;
    for (size_t i = 0; i < spec.constraints.size(); ++i)
      if (applies(spec.constraints[i], ask)) held_[ci][i].values.pop_back();
    chosen_.pop_back();
    asks_.pop_back();
  }

  static bool applies(const model::DeviceConstraint& c, const Ask& ask) {
    if (c.requests.empty()) return true;
    return std::any_of(c.requests.begin(), c.requests.end(),
                       [&](const std::string& r) { return r == ask.base || r == ask.name; });
  }

  // The pool's shared counters hold what the device, the devices already
  // allocated or taken and those chosen in this search consume.
  bool counters_allow(uint32_t d) const {
    const Pool& pool = a_.pools_[a_.all_[d].pool];
    std::map<std::string, std::map<std::string, cel::Quantity>> used;
    const auto consume = [&](uint32_t index) {
      for (const auto& [set, counters] : a_.all_[index].spec->consumes)
        for (const auto& [name, value] : counters) {
          auto [it, fresh] = used[set].try_emplace(name, value);
          if (!fresh)
            if (auto sum = cel::add(it->second, value, false)) it->second = *sum;
        }
    };
    for (const uint32_t index : pool.devices)
      if (a_.taken(index, future_)) consume(index);
    for (const Chosen& c : chosen_)
      if (a_.all_[c.device].pool == a_.all_[d].pool) consume(c.device);
    consume(d);
    for (const auto& [set, counters] : used)
      for (const auto& [name, value] : counters) {
        const auto s = pool.counters.find(set);
        if (s == pool.counters.end()) return false;
        const auto have = s->second.find(name);
        if (have == s->second.end() || cel::compare(have->second, value) < 0) return false;
      }
    return true;
  }

  const DeviceAllocator& a_;
  const Prepared& p_;
  std::span<const uint32_t> devices_;
  std::vector<uint32_t> claims_;
  std::vector<Chosen>& chosen_;
  bool future_;                   // released devices count as free
  std::vector<const Ask*> asks_;  // beside chosen_
  std::vector<std::vector<Held>> held_;
  uint32_t error_ = 0;
  uint64_t steps_ = 0;
};

uint32_t DeviceAllocator::search(const Prepared& p, const Task& task, const Node& node,
                                 std::vector<Chosen>* chosen, bool future) const {
  chosen->clear();
  std::vector<uint32_t> pending;
  for (uint32_t i = 0; i < p.claims.size(); ++i) {
    const Claim& c = p.claims[i];
    const auto it = assumed_.find(c.key);
    if (!c.allocated && (it == assumed_.end() || it->second.task == task.index))
      pending.push_back(i);
  }
  // As kube-scheduler's Filter: the allocation first, then whether the
  // claims allocated before allow the node.
  if (!pending.empty()) {
    Search s(*this, p, node_pools_[node.index], std::move(pending), chosen, future);
    if (!s.run()) {
      chosen->clear();
      if (s.error() != 0) return s.error();
      // Pools that could not be used may have held the devices.
      for (const uint32_t d : node_pools_[node.index])
        if (!pools_[all_[d].pool].invalid.empty()) return why_.invalid_pools;
      return why_.cannot_allocate;
    }
  }
  for (const Claim& c : p.claims) {
    const std::optional<std::vector<model::NodeSelectorTerm>>* pin = nullptr;
    if (c.allocated) {
      pin = &c.claim->allocation->node_selector;
    } else if (const auto it = assumed_.find(c.key);
               it != assumed_.end() && it->second.task != task.index) {
      pin = &it->second.node_selector;
    }
    if (pin != nullptr && pin->has_value() && !model::matches_any_term(**pin, *node.spec))
      return why_.not_available;
  }
  return 0;
}

std::optional<std::vector<model::NodeSelectorTerm>> DeviceAllocator::node_selector_of(
    std::span<const Chosen> chosen, uint32_t claim, const model::Node& node) const {
  model::NodeSelectorTerm term;
  for (const Chosen& c : chosen) {
    if (c.claim != claim) continue;
    const Device& d = all_[c.device];
    if (d.node_local) {
      // A device of one node pins the claim to it.
      model::SelectorRequirement name{"metadata.name", model::SelectorOp::In, {node.name}, true};
      return std::vector<model::NodeSelectorTerm>{{{std::move(name)}, 0}};
    }
    const auto& selector =
        d.slice->per_device_nodes ? d.spec->node_selector : d.slice->node_selector;
    if (!selector || selector->size() != 1) continue;
    for (const model::SelectorRequirement& r : selector->front().requirements)
      if (std::none_of(term.requirements.begin(), term.requirements.end(), [&](const auto& have) {
            return have.key == r.key && have.op == r.op && have.is_field == r.is_field &&
                   std::is_permutation(have.values.begin(), have.values.end(), r.values.begin(),
                                       r.values.end());
          }))
        term.requirements.push_back(r);
  }
  if (term.requirements.empty()) return std::nullopt;
  return std::vector<model::NodeSelectorTerm>{std::move(term)};
}

}  // namespace scoria::session
