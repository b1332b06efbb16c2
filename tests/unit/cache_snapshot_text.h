// A cache snapshot written out as text, field by field, so two snapshots
// compare with one EXPECT_EQ and a difference reads as a diff.
#pragma once

#include <sstream>
#include <string>

#include "cache/cluster_cache.h"

namespace scoria::test_support {

inline std::string vector_text(std::span<const double> v) {
  std::ostringstream s;
  s << "[";
  for (double x : v) s << x << " ";
  s << "]";
  return s.str();
}

/// Everything a session reads from a snapshot, in snapshot order; with
/// `ids`, also the cache's own ids for each job (its slot and arrival rank,
/// which differ between two caches holding the same objects).
inline std::string snapshot_text(const cycle::Snapshot& snap, bool ids = false) {
  std::ostringstream s;
  s << "dims";
  for (const auto& d : snap.dims) s << " " << d;
  s << "\n";
  for (const auto& n : snap.nodes)
    s << "node " << n.spec->name << " " << vector_text(n.allocatable) << " ready=" << n.spec->ready
      << "\n";
  for (const auto& q : snap.queues)
    s << "queue " << q.spec->name << " w=" << q.spec->weight << " cap=" << vector_text(q.capability)
      << " des=" << vector_text(q.deserved) << " gua=" << vector_text(q.guarantee) << "\n";
  for (const model::Namespace* n : snap.namespaces) {
    s << "namespace " << n->name;
    for (const auto& [k, v] : n->labels) s << " " << k << "=" << v;
    s << "\n";
  }
  for (const auto& j : snap.jobs) {
    const model::PodGroup& g = *j.group;
    s << "job " << g.key() << " implicit=" << g.implicit << " queue=" << j.queue << " (" << g.queue
      << ") class=" << g.priority_class_name << " prio=" << j.priority
      << " phase=" << model::phase_name(j.phase) << " min=" << g.min_member
      << " minres=" << vector_text(j.min_resources) << " invalid=" << j.invalid << "\n";
    for (const auto& t : j.tasks)
      s << "  task " << t.views->uid << " group=" << t.pod->group_name << " status=" << t.status
        << " node=" << t.node << " prio=" << t.priority
        << " pod.prio=" << t.pod->priority.value_or(-1) << " never=" << t.pod->preempt_never
        << " req=" << vector_text(t.resreq) << " init=" << vector_text(t.init_resreq)
        << " features=" << t.features << "\n";
    if (ids) s << "  source=" << j.source << " seq=" << j.source_seq << "\n";
    s << "  key=" << j.key << " fields=" << j.fields.namespace_ << "/" << j.fields.name << ","
      << j.fields.queue << "," << j.fields.creation_ms << "," << j.fields.min_member << ","
      << j.fields.preemptable << j.fields.has_min_resources << j.fields.has_network_topology
      << j.fields.has_sub_group_policy << "\n";
  }
  return s.str();
}

/// What the cache's snapshot written whole holds.
inline std::string snapshot_text(const cache::ClusterCache& cache) {
  return snapshot_text(cache.snapshot());
}

}  // namespace scoria::test_support
