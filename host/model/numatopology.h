// nodeinfo.volcano.sh/v1alpha1 Numatopology: a node's CPU and topology
// manager policies, its CPUs by NUMA node, socket and core, and what of them
// is allocatable, as Volcano's resource exporter writes one per node, named
// after it. The numa-aware plugin reads it whole (session_object_json); the
// host only checks that it is well formed.
#pragma once

#include <string>

namespace scoria::model {

struct Numatopology {
  std::string name;  // the node's
  std::string json;  // the whole object as JSON

  const std::string& key() const { return name; }
};

}  // namespace scoria::model
