// What a session knows of the devices and of each pod's claims: the
// inventory (every device numbered, the pools and their completeness, the
// devices each node can use, those allocated in claims' status), each
// task's claims resolved and checked as kube-scheduler's PreFilter checks
// them, and what placements take. The search on one node is in
// device_search.cpp.
#include <algorithm>
#include <map>
#include <set>

#include "model/node_selector.h"
#include "plugin/reason_table.h"
#include "session/device_allocation.h"
#include "session/session.h"

namespace scoria::session {

namespace {

uint32_t intern(const std::string& text) { return plugin::intern_reason(text); }

scoria_str as_str(std::string_view s) { return scoria_str{s.data(), s.size()}; }

// AllocationResultsMaxSize of resource.k8s.io/v1.
constexpr int64_t kMaxResults = 32;
// ResourceClaimReservedForMaxSize.
constexpr size_t kMaxReservations = 256;

std::string pool_key(const std::string& driver, const std::string& pool) {
  return driver + "/" + pool;
}

bool owned_by(const model::ResourceClaim& c, const model::Pod& pod) {
  return c.owner_kind == "Pod" && model::names_pod(pod, c.owner_name, c.owner_uid);
}

bool reserved_for(const model::ResourceClaim& c, const model::Pod& pod) {
  return std::any_of(c.reserved_for.begin(), c.reserved_for.end(), [&](const auto& r) {
    return r.resource == "pods" && model::names_pod(pod, r.name, r.uid);
  });
}

// A DeviceClaimSpec as text: two claims with the same text are allocated
// alike on every node.
std::string spec_text(const model::DeviceClaimSpec& spec) {
  std::string out;
  const auto put = [&](std::string_view s) {
    out += std::to_string(s.size());
    out += ':';
    out += s;
  };
  for (const model::DeviceRequest& r : spec.requests) {
    put(r.name);
    std::vector<const model::DeviceAsk*> asks;
    if (r.exactly) asks.push_back(&*r.exactly);
    for (const model::DeviceAsk& a : r.first_available) asks.push_back(&a);
    out += '[';
    for (const model::DeviceAsk* a : asks) {
      put(a->name);
      put(a->device_class);
      for (const model::DeviceSelector& s : a->selectors) put(s.expression);
      out += a->mode == model::AllocationMode::All ? 'A' : 'N';
      out += std::to_string(a->count);
      out += a->admin_access ? 'a' : '-';
      for (const model::DeviceToleration& t : a->tolerations) {
        put(t.key);
        put(t.value);
        out += std::to_string(static_cast<int>(t.op)) + "," + std::to_string(t.effect);
      }
      out += ';';
    }
    out += ']';
  }
  for (const model::DeviceConstraint& c : spec.constraints) {
    out += '{';
    for (const std::string& r : c.requests) put(r);
    put(c.match_attribute);
    put(c.distinct_attribute);
    out += '}';
  }
  return out;
}

}  // namespace

bool DeviceAllocator::claims(const Task& task) { return !task.pod->device_claims.empty(); }

void DeviceAllocator::reset(const cycle::Devices& devices, std::span<const Task> tasks,
                            std::span<const Node> nodes) {
  devices_ = devices;
  tasks_ = tasks;
  nodes_ = nodes;
  built_.store(false, std::memory_order_relaxed);
  all_.clear();
  pools_.clear();
  node_pools_.clear();
  in_use_.clear();
  device_index_.clear();
  claim_pods_.clear();
  programs_.clear();
  lists_.clear();
  list_ids_.clear();
  meanings_.clear();
  prepared_.reset(tasks.size());
  demands_.reset(tasks.size());
  taken_by_.clear();
  taken_.clear();
  decided_.clear();
  assumed_.clear();
  holders_left_.clear();
  released_.clear();
  if (why_.cannot_allocate == 0) {
    why_.cannot_allocate = intern("cannot allocate all claims");
    why_.not_available = intern("resourceclaim not available on the node");
    why_.invalid_pools = intern("invalid resource pools were encountered");
  }
}

void DeviceAllocator::build() const {
  const std::lock_guard lock(mutex_);
  if (built_.load(std::memory_order_relaxed)) return;
  // Pools: the slices of each (driver, pool) at its newest generation.
  std::map<std::string, std::vector<const model::ResourceSlice*>> by_pool;
  if (devices_.slices != nullptr)
    for (const auto& [name, slice] : *devices_.slices)
      by_pool[pool_key(slice.driver, slice.pool)].push_back(&slice);
  std::unordered_map<std::string, uint32_t> node_at;
  for (const Node& n : nodes_) node_at.emplace(n.spec->name, n.index);
  node_pools_.assign(nodes_.size(), {});
  for (auto& [key, slices] : by_pool) {
    int64_t generation = 0;
    for (const auto* s : slices) generation = std::max(generation, s->pool_generation);
    std::erase_if(slices, [&](const auto* s) { return s->pool_generation != generation; });
    Pool pool;
    pool.driver = slices.front()->driver;
    pool.name = slices.front()->pool;
    pool.complete = static_cast<int64_t>(slices.size()) == slices.front()->pool_slice_count;
    const uint32_t pool_index = static_cast<uint32_t>(pools_.size());
    std::set<std::string> names;
    for (const auto* s : slices)
      for (const auto& [set, counters] : s->counters)
        if (!pool.counters.emplace(set, counters).second && pool.invalid.empty())
          pool.invalid = "duplicate counter set name " + set;
    for (const auto* s : slices) {
      for (const model::Device& d : s->devices) {
        if (!names.insert(d.name).second && pool.invalid.empty())
          pool.invalid = "duplicate device name " + d.name;
        for (const auto& [set, counters] : d.consumes) {
          const auto it = pool.counters.find(set);
          if (it == pool.counters.end()) {
            if (pool.invalid.empty()) pool.invalid = "counter set " + set + " not found";
            continue;
          }
          for (const auto& [counter, value] : counters)
            if (!it->second.contains(counter) && pool.invalid.empty())
              pool.invalid = "counter " + counter + " not found in counter set " + set;
        }
        const uint32_t index = static_cast<uint32_t>(all_.size());
        const bool local = s->per_device_nodes ? !d.node_name.empty() : !s->node_name.empty();
        all_.push_back({s, &d, pool_index, local});
        pool.devices.push_back(index);
        device_index_.emplace(s->driver + "/" + s->pool + "/" + d.name, index);
      }
    }
    pools_.push_back(std::move(pool));
  }
  // The devices each node can use, pool by pool in order.
  for (const Pool& pool : pools_) {
    for (const uint32_t index : pool.devices) {
      const Device& d = all_[index];
      const std::string& only = d.slice->per_device_nodes ? d.spec->node_name : d.slice->node_name;
      if (!only.empty()) {
        if (const auto it = node_at.find(only); it != node_at.end())
          node_pools_[it->second].push_back(index);
        continue;
      }
      for (const Node& n : nodes_)
        if (usable_on(d, *n.spec)) node_pools_[n.index].push_back(index);
    }
  }
  in_use_.assign(all_.size(), 0);
  if (devices_.claims != nullptr)
    for (const auto& [key, claim] : *devices_.claims)
      for (const uint32_t d : held_by(claim)) in_use_[d] = 1;  // admin access shares it
  // Only claims named by resourceClaimName can be shared: one made from a
  // template is its pod's.
  for (const Task& t : tasks_)
    for (const model::DeviceClaimRef& ref : t.pod->device_claims)
      if (!ref.claim.empty()) ++claim_pods_[t.pod->namespace_ + "/" + ref.claim];
  taken_.assign(all_.size(), 0);  // placements start after the first check
  released_.assign(all_.size(), 0);
  built_.store(true, std::memory_order_release);
}

bool DeviceAllocator::usable_on(const Device& d, const model::Node& node) const {
  const model::ResourceSlice& s = *d.slice;
  const bool per_device = s.per_device_nodes;
  const std::string& name = per_device ? d.spec->node_name : s.node_name;
  if (!name.empty()) return name == node.name;
  if (per_device ? d.spec->all_nodes : s.all_nodes) return true;
  const auto& selector = per_device ? d.spec->node_selector : s.node_selector;
  return selector && model::matches_any_term(*selector, node);
}

const DeviceAllocator::SelectorList* DeviceAllocator::selector_list(
    const model::DeviceClass* device_class, const model::DeviceAsk& ask) const {
  std::string key = device_class != nullptr ? device_class->name : std::string();
  key += '\0';
  for (const model::DeviceSelector& s : ask.selectors) {
    key += s.expression;
    key += '\0';
  }
  if (const auto it = list_ids_.find(key); it != list_ids_.end()) return it->second;
  SelectorList& list = lists_.emplace_back();
  list_ids_.emplace(std::move(key), &list);
  std::vector<const std::string*> expressions;
  if (device_class != nullptr) {
    list.device_class = device_class->name;
    for (const model::DeviceSelector& s : device_class->selectors)
      expressions.push_back(&s.expression);
    list.class_selectors = expressions.size();
  }
  for (const model::DeviceSelector& s : ask.selectors) expressions.push_back(&s.expression);
  static constexpr std::string_view kVariables[] = {"device"};
  for (const std::string* expression : expressions) {
    auto it = programs_.find(*expression);
    if (it == programs_.end())
      it = programs_.emplace(*expression, cel::Program::compile(*expression, kVariables)).first;
    list.programs.push_back(std::get_if<cel::Program>(&it->second));
    list.expressions.push_back(*expression);
  }
  if (std::find(list.programs.begin(), list.programs.end(), nullptr) != list.programs.end())
    return &list;
  // Every device, once: the class's selectors first, the request's only
  // where those match, as the allocator asks them.
  list.matched.assign(all_.size(), 1);
  for (uint32_t d = 0; d < all_.size(); ++d) {
    const cel::Variables variables{{"device", all_[d].spec->cel}};
    for (size_t i = 0; i < list.programs.size(); ++i) {
      const cel::Value v = list.programs[i]->evaluate(variables);
      if (v.is<bool>()) {
        if (v.as<bool>()) continue;
        list.matched[d] = 2;
        break;
      }
      list.matched[d] = 3;
      if (!list.failed) {
        list.failed = {i, d};
        list.failure = v.is_error() ? v.as<cel::Error>().message
                                    : "CEL result of type " + std::string(cel::type_name(v)) +
                                          " could not be converted to bool";
        if (list.failure.find("no such key:") != std::string::npos)
          list.failure +=
              ". consider using CEL optional chaining (.? followed by orValue()) or guarding the "
              "check with has() for optional fields";
      }
      break;
    }
  }
  return &list;
}

std::string DeviceAllocator::selector_error(const SelectorList& list,
                                            const std::string& claim) const {
  const auto owner = [&](size_t i) {
    return (i < list.class_selectors ? "class " + list.device_class : "claim " + claim) +
           ": selector #" + std::to_string(i < list.class_selectors ? i : i - list.class_selectors);
  };
  for (size_t i = 0; i < list.programs.size(); ++i) {
    if (list.programs[i] != nullptr) continue;
    const std::string& text = list.expressions[i];
    const auto& failed = std::get<cel::ParseError>(programs_.at(text));
    // Line and column as cel-go writes them.
    const size_t at = std::min(failed.at, text.size());
    const size_t line = 1 + static_cast<size_t>(std::count(text.begin(), text.begin() + at, '\n'));
    const size_t start = text.rfind('\n', at == 0 ? 0 : at - 1);
    const size_t column = start == std::string::npos || at == 0 ? at + 1 : at - start;
    std::string message = failed.message;
    if (message.starts_with("at "))
      message = "Syntax error: " + message.substr(message.find(':') + 2);
    return owner(i) +
           ": CEL compile error: compilation failed: ERROR: <input>:" + std::to_string(line) + ":" +
           std::to_string(column) + ": " + message;
  }
  if (!list.failed) return {};
  const Device& d = all_[list.failed->second];
  return owner(list.failed->first) + " on device " + d.slice->driver + "/" + d.slice->pool + "/" +
         d.spec->name + ": CEL runtime error: " + list.failure;
}

DeviceAllocator::Prepared DeviceAllocator::prepare(const Task& task) const {
  Prepared p;
  const model::Pod& pod = *task.pod;
  std::string meaning;
  bool shares = true;
  std::string key;
  for (const model::DeviceClaimRef& ref : pod.device_claims) {
    const model::ResourceClaim* found = resolve(pod, ref, key);
    // A claim Scoria makes from a template (POD-ENTRY) that is not there,
    // or not the pod's, is one still to be made.
    if (found == nullptr && ref.claim.empty() && ref.made.empty()) {
      if (p.error == 0)
        p.error = intern("pod \"" + pod.key() + "\": ResourceClaim not created yet");
      continue;
    }
    Claim c;
    c.key = key;
    c.claim = found;
    const std::string name = key.substr(pod.namespace_.size() + 1);
    // Two entries naming one claim use it once.
    if (std::any_of(p.claims.begin(), p.claims.end(),
                    [&](const Claim& other) { return other.key == c.key; }))
      continue;
    if (c.claim == nullptr) {
      if (p.error == 0)
        p.error = intern("resourceclaim.resource.k8s.io \"" + name + "\" not found");
      continue;
    }
    const model::ResourceClaim& claim = *c.claim;
    if (p.error == 0 && claim.deleting)
      p.error = intern("resourceclaim \"" + name + "\" is being deleted");
    if (p.error == 0 && ref.claim.empty() && !owned_by(claim, pod))
      p.error = intern("ResourceClaim " + c.key + " was not created for Pod " + pod.key() +
                       " (Pod is not owner)");
    c.allocated = claim.allocation.has_value();
    const auto users = claim_pods_.find(c.key);
    c.shared = users != claim_pods_.end() && users->second > 1;
    if (c.allocated && claim.reserved_for.size() >= kMaxReservations && !reserved_for(claim, pod) &&
        p.error == 0)
      p.error = intern("resourceclaim in use");
    if (c.allocated || c.shared) {
      shares = false;
    } else {
      meaning += spec_text(claim.spec);
      meaning += '|';
    }
    if (!c.allocated) {
      int64_t least = 0;
      for (const model::DeviceRequest& r : claim.spec.requests) {
        Request request;
        std::vector<const model::DeviceAsk*> asks;
        if (r.exactly) asks.push_back(&*r.exactly);
        for (const model::DeviceAsk& a : r.first_available) asks.push_back(&a);
        int64_t fewest = asks.empty() ? 0 : INT64_MAX;
        for (const model::DeviceAsk* a : asks) {
          Ask ask;
          ask.spec = a;
          ask.base = r.name;
          ask.sub = r.exactly ? std::string() : a->name;
          ask.name = r.exactly ? r.name : r.name + "/" + a->name;
          if (devices_.classes != nullptr)
            if (const auto it = devices_.classes->find(a->device_class);
                it != devices_.classes->end())
              ask.device_class = &it->second;
          if (ask.device_class == nullptr && p.error == 0)
            p.error = intern("request " + ask.name + ": device class " + a->device_class +
                             " does not exist");
          ask.selectors = selector_list(ask.device_class, *a);
          // A selector that does not compile, or fails on a device, stops
          // the claim on every node.
          if (p.error == 0 && ask.device_class != nullptr)
            if (std::string why = selector_error(*ask.selectors, c.key); !why.empty())
              p.error = intern(why);
          // Consumable capacity (shared devices) is not allocated here: fail
          // closed rather than give a device without the capacity asked.
          if (!a->capacity_requests.empty() && p.error == 0)
            p.error = intern("request " + ask.name +
                             ": capacity requests (consumable capacity, DRAConsumableCapacity) "
                             "are not supported by this scheduler's allocator");
          if (a->mode == model::AllocationMode::ExactCount)
            fewest = std::min(fewest, a->count);
          else
            fewest = std::min<int64_t>(fewest, 1);
          request.asks.push_back(std::move(ask));
        }
        least += fewest;
        c.requests.push_back(std::move(request));
      }
      if (least > kMaxResults && p.error == 0)
        p.error =
            intern("claim " + c.key + ": number of requested devices " + std::to_string(least) +
                   " exceeds the claim limit of " + std::to_string(kMaxResults));
    }
    p.claims.push_back(std::move(c));
  }
  p.reads_taken = true;
  if (shares && p.error == 0)
    p.meaning =
        meanings_.try_emplace(meaning, static_cast<uint32_t>(meanings_.size() + 1)).first->second;
  return p;
}

const DeviceAllocator::Prepared& DeviceAllocator::prepared(const Task& task) const {
  if (!built_.load(std::memory_order_acquire)) build();
  return prepared_.get(task.index, mutex_, [&] { return prepare(task); });
}

const model::ResourceClaim* DeviceAllocator::resolve(const model::Pod& pod,
                                                     const model::DeviceClaimRef& ref,
                                                     std::string& key) const {
  if (devices_.claims == nullptr) return nullptr;
  key.assign(pod.namespace_);
  key += '/';
  const bool made_here = ref.claim.empty() && ref.made.empty();
  if (!ref.claim.empty())
    key += ref.claim;
  else if (!ref.made.empty())
    key += ref.made;
  else
    model::append_made_claim_name(key, pod, ref);
  const auto it = devices_.claims->find(key);
  if (it == devices_.claims->end() || (made_here && !owned_by(it->second, pod))) return nullptr;
  return &it->second;
}

std::span<const scoria_device_demand> DeviceAllocator::demands(const Task& task) const {
  if (!claims(task)) return {};
  const Demands& d = demands_.get(task.index, mutex_, [&] {
    Demands made;
    std::string key;
    for (const model::DeviceClaimRef& ref : task.pod->device_claims) {
      const model::ResourceClaim* claim = resolve(*task.pod, ref, key);
      if (claim == nullptr) continue;
      if (std::find(made.keys.begin(), made.keys.end(), key) != made.keys.end()) continue;
      const std::string& stored = made.keys.emplace_back(key);
      for (const model::DeviceAmount& a : claim->spec.counted)
        made.entries.push_back({sizeof(scoria_device_demand), as_str(stored),
                                as_str(a.device_class), as_str(a.dimension), a.amount});
    }
    return made;
  });
  return d.entries;
}

uint32_t DeviceAllocator::task_wide_reason(const Task& task) const {
  if (!claims(task)) return 0;
  return prepared(task).error;
}

DeviceAllocator::Sharing DeviceAllocator::sharing(const Task& task) const {
  if (!claims(task)) return {};
  const Prepared& p = prepared(task);
  return {p.reads_taken, p.meaning};
}

uint32_t DeviceAllocator::check(const Task& task, const Node& node, bool future) const {
  if (!claims(task)) return 0;
  const Prepared& p = prepared(task);
  if (p.error != 0) return p.error;
  std::vector<Chosen> chosen;
  return search(p, task, node, &chosen, future);
}

std::vector<uint32_t> DeviceAllocator::held_by(const model::ResourceClaim& claim) const {
  std::vector<uint32_t> out;
  if (!claim.allocation) return out;
  for (const model::DeviceResult& r : claim.allocation->results) {
    if (r.admin_access) continue;
    if (const auto it = device_index_.find(r.driver + "/" + r.pool + "/" + r.device);
        it != device_index_.end())
      out.push_back(it->second);
  }
  return out;
}

void DeviceAllocator::evict(const Task& task) {
  if (!claims(task)) return;
  const Prepared& p = prepared(task);
  for (const Claim& c : p.claims) {
    if (c.claim == nullptr || !c.allocated || !reserved_for(*c.claim, *task.pod)) continue;
    const auto pods = static_cast<size_t>(
        std::count_if(c.claim->reserved_for.begin(), c.claim->reserved_for.end(),
                      [](const model::ClaimConsumer& r) { return r.resource == "pods"; }));
    size_t& left = holders_left_.try_emplace(c.key, pods).first->second;
    if (left == 0 || --left != 0) continue;
    for (const uint32_t d : held_by(*c.claim)) ++released_[d];
  }
}

void DeviceAllocator::unevict(const Task& task) {
  if (!claims(task)) return;
  const Prepared& p = prepared(task);
  for (const Claim& c : p.claims) {
    if (c.claim == nullptr || !c.allocated || !reserved_for(*c.claim, *task.pod)) continue;
    const auto it = holders_left_.find(c.key);
    if (it == holders_left_.end()) continue;
    if (it->second++ != 0) continue;
    for (const uint32_t d : held_by(*c.claim))
      if (released_[d] > 0) --released_[d];
  }
}

bool DeviceAllocator::assume(const Task& task, const Node& node, bool future) {
  if (!claims(task)) return true;
  const Prepared& p = prepared(task);
  if (p.error != 0) return false;
  std::vector<Chosen> chosen;
  if (search(p, task, node, &chosen, future) != 0) return false;
  std::vector<cycle::Outcome::ClaimAllocation> made;
  bool moved = false;
  for (uint32_t i = 0; i < p.claims.size(); ++i) {
    const Claim& c = p.claims[i];
    cycle::Outcome::ClaimAllocation a;
    a.claim = c.key;
    a.claim_uid = c.claim->uid;
    a.node = node.spec->name;
    a.allocated_now = !c.allocated && !assumed_.contains(c.key);
    a.allocated_by_another = !c.allocated && !a.allocated_now;
    if (a.allocated_now) {
      for (const Chosen& ch : chosen) {
        if (ch.claim != i) continue;
        const Device& d = all_[ch.device];
        if (!ch.admin) {
          taken_[ch.device] = task.index + 1;
          taken_by_[task.index].push_back(ch.device);
          moved = moved || !d.node_local;
        }
        a.devices.push_back({ch.request, d.slice->driver, d.slice->pool, d.spec->name, ch.admin});
      }
      a.node_selector = node_selector_of(chosen, i, *node.spec);
      if (c.shared) {
        assumed_[c.key] = {a.node_selector, task.index};
        moved = true;
      }
    }
    made.push_back(std::move(a));
  }
  if (moved) ++epoch_;
  decided_[task.index] = std::move(made);
  return true;
}

void DeviceAllocator::release(const Task& task) {
  const auto it = decided_.find(task.index);
  if (it == decided_.end()) return;
  bool moved = false;
  if (const auto mine = taken_by_.find(task.index); mine != taken_by_.end()) {
    for (const uint32_t d : mine->second) {
      taken_[d] = 0;
      moved = moved || !all_[d].node_local;
    }
    taken_by_.erase(mine);
  }
  moved = std::erase_if(assumed_, [&](const auto& e) { return e.second.task == task.index; }) > 0 ||
          moved;
  if (moved) ++epoch_;
  decided_.erase(it);
}

std::vector<cycle::Outcome::ClaimAllocation> DeviceAllocator::take(const Task& task) {
  const auto it = decided_.find(task.index);
  if (it == decided_.end()) return {};
  std::vector<cycle::Outcome::ClaimAllocation> out = std::move(it->second);
  decided_.erase(it);
  // The devices stay taken: the bind holds them for the rest of the session.
  return out;
}

}  // namespace scoria::session
