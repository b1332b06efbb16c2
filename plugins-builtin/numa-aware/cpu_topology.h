// A node's CPUs by NUMA node, socket and core (a Numatopology's cpuDetail),
// and the kubelet CPU manager's topology-aware best fit over them
// (takeByTopology), which Volcano's numa-aware plugin runs to decide which
// CPUs a container would get.
#pragma once

#include <scoria/cpuset.hpp>

#include <cstdint>
#include <optional>
#include <vector>

#include "topology_policy.h"

namespace numa_aware {

using scoria::CpuSet;

struct CpuInfo {
  int32_t id = 0;
  int32_t numa = 0;
  int32_t socket = 0;
  int32_t core = 0;  // unique within its socket, as the resource exporter reports it
};

class CpuTopology {
 public:
  CpuTopology() = default;
  /// `cpus` in any order, each id once.
  explicit CpuTopology(std::vector<CpuInfo> cpus);

  const std::vector<CpuInfo>& cpus() const { return cpus_; }  // by id
  const CpuInfo* find(int32_t id) const;
  CpuSet all() const;
  /// The CPUs on the NUMA nodes of `mask`.
  CpuSet in_numa(NumaMask mask) const;
  /// NUMA node ids, ascending.
  const std::vector<int32_t>& numa_nodes() const { return numa_nodes_; }
  /// How many NUMA nodes the CPUs of `set` sit on.
  int numa_count(const CpuSet& set) const;
  int cpus_per_socket() const;
  int cpus_per_core() const;

 private:
  std::vector<CpuInfo> cpus_;
  std::vector<int32_t> numa_nodes_;
  int sockets_ = 0;
  int cores_ = 0;  // physical cores: distinct (socket, core)
};

/// `count` CPUs of `available` chosen as the kubelet's CPU manager does:
/// whole sockets while the request needs one, then whole cores, then single
/// CPUs on the sockets and cores already drawn from, fullest first. nullopt
/// when `available` has fewer than `count`.
std::optional<CpuSet> take_by_topology(const CpuTopology& topo, const CpuSet& available, int count);

}  // namespace numa_aware
