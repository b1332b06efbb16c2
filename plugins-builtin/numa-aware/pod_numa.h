// What of a pod the numa-aware plugin decides on: whether its QoS class is
// Guaranteed (Kubernetes' GetPodQOS), and each container's CPU request,
// which the CPU manager pins only when it is a whole number of CPUs.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace numa_aware {

struct ContainerCpus {
  std::string name;
  bool requests_cpu = false;  // resources.requests has cpu (limits stand in, as defaulted)
  int guaranteed_cpus = 0;    // the CPUs requested when a whole number, else 0
};

struct PodNuma {
  bool guaranteed = false;
  std::vector<ContainerCpus> containers;  // spec.containers, in order
};

/// Reads a pod's JSON (task_object_json). Throws std::exception when it is
/// not a pod object.
PodNuma parse_pod_numa(std::string_view pod_json);

}  // namespace numa_aware
