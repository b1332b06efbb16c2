// Equivalence classes (SDK 1.7, on_cache_policy): which class a task's
// answers may be kept for, and what its plugins declared. A task whose
// plugins all declared their node hooks pure for its class reads the
// answers recorded for the class (NodeSearch) and asks only the nodes that
// changed since. Each node's answer is what the plain path would compute
// for it, so the decisions are the same; `equivalence_cache = false` runs
// the plain path.
#include "session/hook_calls.h"
#include "session/session.h"

namespace scoria::session {

using config::Flag;

EquivalenceCache::Class* Session::cached_class(const Task& task, uint32_t need) {
  if (!equivalence_ || task.views == nullptr || task.views->equivalence == 0) return nullptr;
  const VolumeBinder::Sharing volumes = volumes_.sharing(task);
  if (!volumes.keeps) return nullptr;
  EquivalenceCache::Class* klass = nullptr;
  // The wider class of tasks whose claims differ in name only, where every
  // plugin reads claims only through the host's volume checks.
  if (volumes.shared != 0) {
    EquivalenceCache::Class& wide = equivalence_->of(volumes.shared);
    know_policy(task, wide);
    if ((wide.policy & SCORIA_CACHE_CLAIMS) != 0) klass = &wide;
  }
  if (klass == nullptr) {
    klass = &equivalence_->of(task.views->equivalence);
    know_policy(task, *klass);
  }
  // A volume taken or given back by a placement since the answers were
  // made may change them on any node its affinity allows.
  if (volumes.reads_taken && klass->volume_epoch != volumes_.epoch()) {
    klass->forget_predicates();
    klass->volume_epoch = volumes_.epoch();
  }
  // Devices: answers made for claims of another meaning are not these
  // claims'; a placement that took devices other nodes could use, or
  // decided a claim other pods name, may change them on any node.
  if (DeviceAllocator::claims(task)) {
    const DeviceAllocator::Sharing devices = devices_.sharing(task);
    if (devices.meaning == 0) return nullptr;
    if (klass->device_meaning == 0) klass->device_meaning = devices.meaning;
    if (klass->device_meaning != devices.meaning) return nullptr;
    if (devices.reads_taken && klass->device_epoch != devices_.epoch()) {
      klass->forget_predicates();
      klass->device_epoch = devices_.epoch();
    }
  }
  return (klass->policy & need) != 0 ? klass : nullptr;
}

void Session::know_policy(const Task& task, EquivalenceCache::Class& klass) {
  if (klass.policy_known) return;
  // Every plugin with a hook of a kind must declare it; one that does not
  // (any plugin built before 1.7) keeps the class on the plain path.
  uint32_t policy = SCORIA_CACHE_PREDICATE | SCORIA_CACHE_NODE_ORDER | SCORIA_CACHE_CLAIMS;
  for (auto& tier : dispatch_.tiers())
    for (auto& p : tier) {
      const bool predicate =
          on(p, Flag::Predicate) && (p.hooks.on_predicate != nullptr || p.hooks.on_predicate_batch);
      const bool score = on(p, Flag::NodeOrder) &&
                         (p.hooks.on_node_order != nullptr || p.hooks.on_node_order_batch);
      if (!predicate && !score) continue;
      const uint32_t said = p.hooks.on_cache_policy != nullptr
                                ? call(p, "on_cache_policy", p.hooks.on_cache_policy, &task)
                                : 0u;
      if (predicate && (said & SCORIA_CACHE_PREDICATE) == 0) policy &= ~SCORIA_CACHE_PREDICATE;
      if (score && (said & SCORIA_CACHE_NODE_ORDER) == 0) policy &= ~SCORIA_CACHE_NODE_ORDER;
      if ((said & SCORIA_CACHE_CLAIMS) == 0) policy &= ~SCORIA_CACHE_CLAIMS;
    }
  klass.policy = policy;
  klass.policy_known = true;
}

}  // namespace scoria::session
