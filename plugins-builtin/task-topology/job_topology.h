// One job's task topology at work (Volcano's task-topology JobManager): the
// roles' affinities turned into relations, the job's tasks sorted into
// buckets once per session, the buckets kept up to date as tasks are placed,
// and the answers the plugin gives from them (task order, node score).
// Free of the SDK: the plugin hands in tasks and node figures.
#pragma once

#include "annotations.h"
#include "bucket.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace scoria_task_topology {

// One task of the job as the buckets need it.
struct TaskEntry {
  std::string_view name;            // metadata.name: ties in the build order
  std::string_view task_spec;       // the pod's volcano.sh/task-spec annotation, "" if none
  std::string_view node_name;       // the node it is on, "" if none
  uint32_t node = Bucket::kNoNode;  // that node's session index, kNoNode if none or unknown
  std::span<const double> resreq;
};

class JobTopology {
 public:
  static constexpr int kOutOfBucket = -1;

  JobTopology(const Topology& topology, size_t dims);

  // Volcano's ConstructBucket: tasks whose role has an affinity or
  // anti-affinity go into buckets, the rest stay out. Slot i is tasks[i].
  void build(std::span<const TaskEntry> tasks);

  int bucket_of(uint32_t slot) const { return slots_[slot].bucket; }
  size_t pending_in(int bucket) const {
    return buckets_[static_cast<size_t>(bucket)].pending.size();
  }

  // Volcano's taskAffinityOrder: >0 if l's role comes first (the task order
  // annotation, then the strongest kind of topology its role has), <0 if
  // r's, 0 if neither.
  int affinity_order(uint32_t l, uint32_t r) const;

  // The allocate and deallocate events: slot placed on / taken off `node`.
  void placed(uint32_t slot, uint32_t node);
  void unplaced(uint32_t slot);

  // Node scores for one task, prepared once per batch of nodes.
  class Scorer {
   public:
    // Volcano's calcBucketScore, before the weight: 0 when the task's
    // request exceeds idle + releasing in any dimension.
    int score(uint32_t node, std::span<const double> idle, std::span<const double> releasing) const;
    bool in_bucket() const { return bucket_ != nullptr; }

   private:
    friend class JobTopology;
    const JobTopology* job_ = nullptr;
    const Bucket* bucket_ = nullptr;
    std::span<const double> resreq_;
    // The roles the task's role avoids (self or inter anti-affinity).
    std::vector<int> anti_;
    // Request of the bucket's other pending tasks summed in bucket order:
    // remains after k of them are taken out = request - taken[k].
    std::vector<double> taken_;  // others_ + 1 rows of dims values

    size_t others_ = 0;
  };
  Scorer scorer(uint32_t slot, std::span<const double> resreq) const;

  // Largest bucket (tasks placed or not) at build time: scores are scaled
  // to 0-100 by it.
  int bucket_max_size() const { return bucket_max_size_; }

 private:
  struct Slot {
    int role = -1;  // role id of its task-spec, -1 if unset or not in the annotations
    int bucket = kOutOfBucket;
    uint32_t placed_on = Bucket::kNoNode;  // node of an allocate event not yet undone
    bool placed = false;
    std::span<const double> resreq;
  };

  int role_id(std::string_view role) const;
  int intern(const std::string& role);
  // Volcano's checkTaskSetAffinity over role counts: + per task of a role
  // the given role is drawn to, - per task of a role it avoids.
  int set_affinity(int role, std::span<const int> counts) const;
  bool related(const std::vector<char>& self, const std::vector<char>& inter, int a, int b) const;

  size_t dims_;
  std::vector<std::string> roles_;
  std::unordered_map<std::string, int> role_ids_;
  std::vector<int> priority_;               // per role: 0 without topology, else its strongest kind
  std::vector<int> order_;                  // per role: task order rank, larger first, 0 unlisted
  std::vector<char> self_aff_, self_anti_;  // per role
  std::vector<char> inter_aff_, inter_anti_;  // roles x roles
  std::vector<Slot> slots_;
  std::vector<Bucket> buckets_;
  int bucket_max_size_ = 0;
  // Tasks of the job placed by this session's allocate events, by node and
  // role (Volcano's nodeTaskSet): anti-affinity on a node counts them only.
  std::unordered_map<uint32_t, std::vector<int>> node_roles_;
};

}  // namespace scoria_task_topology
