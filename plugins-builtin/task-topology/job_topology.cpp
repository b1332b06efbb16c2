#include "job_topology.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <utility>

namespace scoria_task_topology {
namespace {

// Volcano's affinityPriority: which kind of topology makes a role go first
// when the task order annotation does not say (larger first).
constexpr int kSelfAntiAffinity = 4;
constexpr int kInterAffinity = 3;
constexpr int kSelfAffinity = 2;
constexpr int kInterAntiAffinity = 1;

// l <= r with Volcano's tolerance (0.1 in any dimension).
bool fits(double l, double r) { return l < r || std::fabs(l - r) < 0.1; }

}  // namespace

int JobTopology::intern(const std::string& role) {
  const auto [it, added] = role_ids_.emplace(role, static_cast<int>(roles_.size()));
  if (added) roles_.push_back(role);
  return it->second;
}

int JobTopology::role_id(std::string_view role) const {
  const auto it = role_ids_.find(std::string(role));
  return it == role_ids_.end() ? -1 : it->second;
}

JobTopology::JobTopology(const Topology& topology, size_t dims) : dims_(dims) {
  // Empty items ("ps,,worker") name no role; every other one gets an id.
  for (const auto* groups : {&topology.affinity, &topology.anti_affinity})
    for (const auto& group : *groups)
      for (const std::string& role : group)
        if (!role.empty()) intern(role);
  for (const std::string& role : topology.task_order)
    if (!role.empty()) intern(role);

  const size_t n = roles_.size();
  priority_.assign(n, 0);
  order_.assign(n, 0);
  self_aff_.assign(n, 0);
  self_anti_.assign(n, 0);
  inter_aff_.assign(n * n, 0);
  inter_anti_.assign(n * n, 0);

  // Volcano's ApplyTaskTopology: a group of one role is about that role with
  // itself; a larger group relates each pair of its roles both ways.
  const auto apply = [&](const std::vector<std::vector<std::string>>& groups,
                         std::vector<char>& self, std::vector<char>& inter, int self_kind,
                         int inter_kind) {
    for (const auto& group : groups) {
      if (group.size() == 1) {
        if (group[0].empty()) continue;
        const int r = role_id(group[0]);
        self[static_cast<size_t>(r)] = 1;
        priority_[static_cast<size_t>(r)] = std::max(priority_[static_cast<size_t>(r)], self_kind);
        continue;
      }
      for (size_t i = 0; i < group.size(); ++i) {
        if (group[i].empty()) continue;
        const auto a = static_cast<size_t>(role_id(group[i]));
        for (size_t j = 0; j < i; ++j) {
          if (group[j].empty()) continue;
          const auto b = static_cast<size_t>(role_id(group[j]));
          inter[a * n + b] = 1;
          inter[b * n + a] = 1;
        }
        priority_[a] = std::max(priority_[a], inter_kind);
      }
    }
  };
  apply(topology.affinity, self_aff_, inter_aff_, kSelfAffinity, kInterAffinity);
  apply(topology.anti_affinity, self_anti_, inter_anti_, kSelfAntiAffinity, kInterAntiAffinity);

  // The first role listed ranks highest; a role listed twice keeps its last
  // rank, as Volcano's map does (the annotation check refuses repeats anyway).
  const size_t length = topology.task_order.size();
  for (size_t i = 0; i < length; ++i)
    if (!topology.task_order[i].empty())
      order_[static_cast<size_t>(role_id(topology.task_order[i]))] = static_cast<int>(length - i);
}

bool JobTopology::related(const std::vector<char>& self, const std::vector<char>& inter, int a,
                          int b) const {
  const auto ua = static_cast<size_t>(a), ub = static_cast<size_t>(b);
  return a == b ? self[ua] != 0 : inter[ua * roles_.size() + ub] != 0;
}

int JobTopology::set_affinity(int role, std::span<const int> counts) const {
  if (role < 0) return 0;
  int sum = 0;
  for (size_t q = 0; q < counts.size(); ++q) {
    if (counts[q] == 0) continue;
    const int other = static_cast<int>(q);
    if (related(self_aff_, inter_aff_, role, other)) sum += counts[q];
    if (related(self_anti_, inter_anti_, role, other)) sum -= counts[q];
  }
  return sum;
}

int JobTopology::affinity_order(uint32_t l, uint32_t r) const {
  const int lr = slots_[l].role, rr = slots_[r].role;
  if (lr == rr) return 0;
  // Only tasks in buckets are compared, and those have a known role.
  if (lr < 0 || rr < 0) return 0;
  const int lo = order_[static_cast<size_t>(lr)], ro = order_[static_cast<size_t>(rr)];
  if (lo != ro) return lo > ro ? 1 : -1;
  const int lp = priority_[static_cast<size_t>(lr)], rp = priority_[static_cast<size_t>(rr)];
  if (lp != rp) return lp > rp ? 1 : -1;
  return 0;
}

void JobTopology::build(std::span<const TaskEntry> tasks) {
  slots_.assign(tasks.size(), Slot{});
  std::vector<uint32_t> order;  // tasks to put into buckets
  for (uint32_t i = 0; i < tasks.size(); ++i) {
    Slot& slot = slots_[i];
    slot.resreq = tasks[i].resreq;
    if (tasks[i].task_spec.empty()) continue;
    slot.role = role_id(tasks[i].task_spec);
    if (slot.role >= 0 && priority_[static_cast<size_t>(slot.role)] > 0) order.push_back(i);
  }

  // Volcano sorts the tasks so that those already on a node come first (by
  // node name), then by affinity order, then by name.
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    const TaskEntry& ta = tasks[a];
    const TaskEntry& tb = tasks[b];
    const bool an = !ta.node_name.empty(), bn = !tb.node_name.empty();
    if (an || bn) {
      if (an != bn) return an;
      return ta.node_name < tb.node_name;
    }
    const int o = affinity_order(a, b);
    if (o != 0) return o > 0;
    return ta.name < tb.name;
  });

  // Tasks on a node share one bucket per node; a task still to place joins
  // the bucket it has most affinity with (the least loaded of equals), or a
  // new one when every bucket repels it.
  std::unordered_map<std::string_view, int> node_bucket;
  for (const uint32_t i : order) {
    const TaskEntry& task = tasks[i];
    Slot& slot = slots_[i];
    int selected = -1;
    int best = INT_MIN;
    if (!task.node_name.empty()) {
      best = 0;
      if (const auto it = node_bucket.find(task.node_name); it != node_bucket.end())
        selected = it->second;
    } else {
      for (size_t b = 0; b < buckets_.size(); ++b) {
        const int aff = set_affinity(slot.role, buckets_[b].role_count);
        if (aff > best) {
          best = aff;
          selected = static_cast<int>(b);
        } else if (aff == best && selected >= 0 &&
                   buckets_[b].req_score < buckets_[static_cast<size_t>(selected)].req_score) {
          selected = static_cast<int>(b);
        }
      }
    }
    if (best < 0 || selected < 0) {
      selected = static_cast<int>(buckets_.size());
      buckets_.emplace_back(roles_.size(), dims_);
      if (!task.node_name.empty()) node_bucket.emplace(task.node_name, selected);
    }

    Bucket& bucket = buckets_[static_cast<size_t>(selected)];
    slot.bucket = selected;
    ++bucket.role_count[static_cast<size_t>(slot.role)];
    if (!task.node_name.empty())
      bucket.add_on_node(task.node, 1);
    else
      bucket.add_pending(i, task.resreq);
    bucket_max_size_ =
        std::max(bucket_max_size_, static_cast<int>(bucket.pending.size()) + bucket.bound);
  }
}

void JobTopology::placed(uint32_t slot_index, uint32_t node) {
  Slot& slot = slots_[slot_index];
  if (slot.placed) return;
  slot.placed = true;
  slot.placed_on = node;
  if (slot.role >= 0 && node != Bucket::kNoNode) {
    auto& counts = node_roles_[node];
    counts.resize(roles_.size(), 0);
    ++counts[static_cast<size_t>(slot.role)];
  }
  if (slot.bucket == kOutOfBucket) return;
  Bucket& bucket = buckets_[static_cast<size_t>(slot.bucket)];
  bucket.add_on_node(node, 1);
  bucket.remove_pending(slot_index, slot.resreq);
}

// Undoes placed(): Volcano has no deallocate handler, but a discarded
// statement here sends one, and a bucket must not keep a task on a node it
// left (nor lose a task that is pending again).
void JobTopology::unplaced(uint32_t slot_index) {
  Slot& slot = slots_[slot_index];
  if (!slot.placed) return;
  slot.placed = false;
  const uint32_t node = std::exchange(slot.placed_on, Bucket::kNoNode);
  if (slot.role >= 0 && node != Bucket::kNoNode) {
    if (const auto it = node_roles_.find(node); it != node_roles_.end())
      --it->second[static_cast<size_t>(slot.role)];
  }
  if (slot.bucket == kOutOfBucket) return;
  Bucket& bucket = buckets_[static_cast<size_t>(slot.bucket)];
  bucket.add_on_node(node, -1);
  bucket.add_pending(slot_index, slot.resreq);
}

JobTopology::Scorer JobTopology::scorer(uint32_t slot_index, std::span<const double> resreq) const {
  Scorer s;
  s.job_ = this;
  s.resreq_ = resreq;
  const Slot& slot = slots_[slot_index];
  if (slot.bucket == kOutOfBucket) return s;
  const Bucket& bucket = buckets_[static_cast<size_t>(slot.bucket)];
  s.bucket_ = &bucket;
  for (size_t q = 0; q < roles_.size(); ++q)
    if (related(self_anti_, inter_anti_, slot.role, static_cast<int>(q)))
      s.anti_.push_back(static_cast<int>(q));
  // Only needed when the bucket does not fit a node whole; cheap to make
  // once here, and it spares a walk over the bucket for every node.
  s.taken_.assign(dims_, 0.0);
  for (const uint32_t other : bucket.pending) {
    if (other == slot_index) continue;
    const std::span<const double> req = slots_[other].resreq;
    const size_t row = s.taken_.size() - dims_;
    for (size_t d = 0; d < dims_; ++d)
      s.taken_.push_back(s.taken_[row + d] + (d < req.size() ? req[d] : 0.0));
    ++s.others_;
  }
  return s;
}

int JobTopology::Scorer::score(uint32_t node, std::span<const double> idle,
                               std::span<const double> releasing) const {
  const size_t dims = job_->dims_;
  const auto max_at = [&](size_t d) {
    return (d < idle.size() ? idle[d] : 0.0) + (d < releasing.size() ? releasing[d] : 0.0);
  };
  // A node the task can never fit scores nothing.
  for (size_t d = 0; d < dims && d < resreq_.size(); ++d)
    if (max_at(d) < resreq_[d]) return 0;
  if (bucket_ == nullptr) return 0;

  // 1. Tasks of the bucket already on the node.
  int score = bucket_->tasks_on(node);
  // 2. Tasks this session placed on the node whose roles this one avoids.
  if (!anti_.empty()) {
    if (const auto it = job_->node_roles_.find(node); it != job_->node_roles_.end()) {
      int anti = 0;
      for (const int role : anti_) anti -= it->second[static_cast<size_t>(role)];
      if (anti < 0) score += anti;
    }
  }
  // 3. The bucket's tasks still to place, less one for each that would have
  // to go elsewhere for the rest to fit the node. Volcano takes them out in
  // map order; here in bucket order, found by bisection since what remains
  // only shrinks as more are taken out.
  score += static_cast<int>(bucket_->pending.size());
  const auto remains_fit = [&](size_t k) {
    for (size_t d = 0; d < dims; ++d)
      if (!fits(bucket_->request[d] - taken_[k * dims + d], max_at(d))) return false;
    return true;
  };
  if (remains_fit(0)) return score;
  size_t lo = 1, hi = others_;  // the answer is in [lo, hi]; hi when none fits
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (remains_fit(mid))
      hi = mid;
    else
      lo = mid + 1;
  }
  return score - static_cast<int>(hi);
}

}  // namespace scoria_task_topology
