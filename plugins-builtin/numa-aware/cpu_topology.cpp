#include "cpu_topology.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <utility>

namespace numa_aware {

namespace {

using CoreKey = std::pair<int32_t, int32_t>;  // (socket, core)

// What of a topology is still free while CPUs are taken.
struct Accumulator {
  const CpuTopology& topo;
  CpuSet free;
  CpuSet result;
  int needed;

  bool needs(int n) const { return needed >= n; }
  bool satisfied() const { return needed < 1; }
  void take(const CpuSet& cpus) {
    result |= cpus;
    free -= cpus;
    needed -= static_cast<int>(cpus.size());
  }
  CpuSet socket_cpus(int32_t socket, bool only_free) const {
    CpuSet out;
    for (const CpuInfo& c : topo.cpus())
      if (c.socket == socket && (!only_free || free.contains(c.id))) out.add(c.id);
    return out;
  }
  CpuSet core_cpus(const CoreKey& core, bool only_free) const {
    CpuSet out;
    for (const CpuInfo& c : topo.cpus())
      if (c.socket == core.first && c.core == core.second && (!only_free || free.contains(c.id)))
        out.add(c.id);
    return out;
  }
  // Sockets all of whose CPUs are free, ascending.
  std::vector<int32_t> free_sockets() const {
    std::set<int32_t> sockets, partial;
    for (const CpuInfo& c : topo.cpus()) (free.contains(c.id) ? sockets : partial).insert(c.socket);
    std::vector<int32_t> out;
    for (const int32_t s : sockets)
      if (!partial.contains(s)) out.push_back(s);
    return out;
  }
  // Cores all of whose CPUs are free: sockets with fewer such cores first,
  // then by socket and core id.
  std::vector<CoreKey> free_cores() const {
    std::map<CoreKey, bool> whole;  // core -> all its CPUs free
    for (const CpuInfo& c : topo.cpus()) {
      auto [it, fresh] = whole.emplace(CoreKey{c.socket, c.core}, true);
      it->second = it->second && free.contains(c.id);
    }
    std::map<int32_t, int> per_socket;
    std::vector<CoreKey> out;
    for (const auto& [core, all_free] : whole)
      if (all_free) {
        ++per_socket[core.first];
        out.push_back(core);
      }
    std::stable_sort(out.begin(), out.end(), [&](const CoreKey& a, const CoreKey& b) {
      return std::tuple(per_socket[a.first], a) < std::tuple(per_socket[b.first], b);
    });
    return out;
  }
  // Free CPUs, core by core: cores on sockets the result already uses
  // most first, then sockets and cores with fewer free CPUs, then by id.
  std::vector<int32_t> free_cpus() const {
    std::map<CoreKey, int> core_free;
    std::map<int32_t, int> socket_free, socket_taken;
    for (const CpuInfo& c : topo.cpus()) {
      if (free.contains(c.id)) {
        ++core_free[{c.socket, c.core}];
        ++socket_free[c.socket];
      }
      if (result.contains(c.id)) ++socket_taken[c.socket];
    }
    std::vector<CoreKey> cores;
    for (const auto& [core, n] : core_free) cores.push_back(core);
    std::stable_sort(cores.begin(), cores.end(), [&](const CoreKey& a, const CoreKey& b) {
      return std::tuple(-socket_taken[a.first], socket_free[a.first], core_free[a], a) <
             std::tuple(-socket_taken[b.first], socket_free[b.first], core_free[b], b);
    });
    std::vector<int32_t> out;
    for (const CoreKey& core : cores)
      core_cpus(core, true).each([&](int32_t id) { out.push_back(id); });
    return out;
  }
};

}  // namespace

CpuTopology::CpuTopology(std::vector<CpuInfo> cpus) : cpus_(std::move(cpus)) {
  std::sort(cpus_.begin(), cpus_.end(),
            [](const CpuInfo& a, const CpuInfo& b) { return a.id < b.id; });
  std::set<int32_t> numa, sockets;
  std::set<CoreKey> cores;
  for (const CpuInfo& c : cpus_) {
    numa.insert(c.numa);
    sockets.insert(c.socket);
    cores.insert({c.socket, c.core});
  }
  numa_nodes_.assign(numa.begin(), numa.end());
  sockets_ = static_cast<int>(sockets.size());
  cores_ = static_cast<int>(cores.size());
}

const CpuInfo* CpuTopology::find(int32_t id) const {
  const auto it = std::lower_bound(cpus_.begin(), cpus_.end(), id,
                                   [](const CpuInfo& c, int32_t v) { return c.id < v; });
  return it != cpus_.end() && it->id == id ? &*it : nullptr;
}

CpuSet CpuTopology::all() const {
  CpuSet out;
  for (const CpuInfo& c : cpus_) out.add(c.id);
  return out;
}

CpuSet CpuTopology::in_numa(NumaMask mask) const {
  CpuSet out;
  for (const CpuInfo& c : cpus_)
    if (c.numa < 64 && ((mask >> c.numa) & 1u) != 0) out.add(c.id);
  return out;
}

int CpuTopology::numa_count(const CpuSet& set) const {
  NumaMask m = 0;
  set.each([&](int32_t id) {
    // A CPU the topology does not describe counts as NUMA node 0, as
    // Volcano's zero-valued lookup does.
    const CpuInfo* c = find(id);
    m |= NumaMask{1} << (c != nullptr && c->numa < 64 ? c->numa : 0);
  });
  return mask_count(m);
}

int CpuTopology::cpus_per_socket() const {
  return sockets_ == 0 ? 0 : static_cast<int>(cpus_.size()) / sockets_;
}

int CpuTopology::cpus_per_core() const {
  return cores_ == 0 ? 0 : static_cast<int>(cpus_.size()) / cores_;
}

std::optional<CpuSet> take_by_topology(const CpuTopology& topo, const CpuSet& available,
                                       int count) {
  Accumulator acc{topo, topo.all() & available, CpuSet{}, count};
  if (acc.satisfied()) return acc.result;
  if (static_cast<size_t>(acc.needed) > acc.free.size()) return std::nullopt;
  // 1. Whole sockets, while the request needs at least one.
  const int per_socket = topo.cpus_per_socket();
  if (per_socket > 0 && acc.needs(per_socket)) {
    for (const int32_t s : acc.free_sockets()) {
      acc.take(acc.socket_cpus(s, true));
      if (acc.satisfied()) return acc.result;
      if (!acc.needs(per_socket)) break;
    }
  }
  // 2. Whole cores, while the request needs at least one.
  const int per_core = topo.cpus_per_core();
  if (per_core > 0 && acc.needs(per_core)) {
    for (const CoreKey& c : acc.free_cores()) {
      acc.take(acc.core_cpus(c, true));
      if (acc.satisfied()) return acc.result;
      if (!acc.needs(per_core)) break;
    }
  }
  // 3. Single CPUs, filling the sockets and cores already drawn from.
  for (const int32_t id : acc.free_cpus()) {
    if (acc.needs(1)) {
      CpuSet one;
      one.add(id);
      acc.take(one);
    }
    if (acc.satisfied()) return acc.result;
  }
  return std::nullopt;
}

}  // namespace numa_aware
