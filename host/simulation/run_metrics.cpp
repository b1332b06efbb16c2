#include "simulation/run_metrics.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <string_view>
#include <unordered_map>

#include "scoria/scoria.h"

namespace scoria::simulation {

namespace {

using Json = nlohmann::ordered_json;

double seconds(int64_t ms) { return static_cast<double>(ms) / 1000.0; }

// Rounded to what a reader compares (and what stays stable across
// compilers' last-bit differences in sums).
double round6(double v) { return std::round(v * 1e6) / 1e6; }

// Nearest-rank percentile of sorted `v` (non-empty).
double percentile(const std::vector<double>& v, double p) {
  const size_t rank = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(v.size())));
  return v[std::min(v.size() - 1, rank == 0 ? 0 : rank - 1)];
}

Json wait_stats(std::vector<double> waits) {
  if (waits.empty()) return nullptr;
  std::sort(waits.begin(), waits.end());
  double sum = 0;
  for (double w : waits) sum += w;
  return {{"p50", round6(percentile(waits, 50))},
          {"p95", round6(percentile(waits, 95))},
          {"p99", round6(percentile(waits, 99))},
          {"mean", round6(sum / static_cast<double>(waits.size()))},
          {"max", round6(waits.back())}};
}

// The shapes among `shapes` that no other one fits inside: a node fits some
// pending task exactly when it fits one of these.
std::vector<std::vector<double>> minimal_shapes(std::vector<std::vector<double>> shapes) {
  std::sort(shapes.begin(), shapes.end());
  shapes.erase(std::unique(shapes.begin(), shapes.end()), shapes.end());
  std::vector<std::vector<double>> out;
  for (const auto& s : shapes) {
    bool dominated = false;
    for (const auto& o : out) {
      bool inside = true;
      for (size_t d = 0; d < s.size() && inside; ++d) inside = o[d] <= s[d];
      if (inside) {
        dominated = true;
        break;
      }
    }
    if (!dominated) out.push_back(s);
  }
  return out;
}

// Time-weighted averages of the step function (times[i], values[i]) over
// `buckets` equal intervals of [0, end_ms].
std::vector<double> bucketed(const std::vector<int64_t>& times, const std::vector<double>& values,
                             int64_t end_ms, size_t buckets) {
  std::vector<double> sum(buckets, 0.0);
  if (end_ms <= 0 || buckets == 0) return sum;
  const double width = static_cast<double>(end_ms) / static_cast<double>(buckets);
  for (size_t i = 0; i < times.size(); ++i) {
    const double from = static_cast<double>(times[i]);
    const double to =
        i + 1 < times.size() ? static_cast<double>(times[i + 1]) : static_cast<double>(end_ms);
    if (to <= from) continue;
    size_t b = std::min(buckets - 1, static_cast<size_t>(from / width));
    for (double at = from; at < to && b < buckets; ++b) {
      const double edge = std::min(to, static_cast<double>(b + 1) * width);
      sum[b] += values[i] * (edge - at);
      at = edge;
    }
  }
  for (double& s : sum) s = round6(s / width);
  return sum;
}

}  // namespace

void RunMetrics::add_job(const std::string& key, const std::string& queue, int32_t min_member,
                         int32_t pods, int64_t arrival_ms) {
  Job& j = jobs_[key];
  j.queue = queue;
  j.min_member = std::max(1, min_member);
  j.pods = pods;
  j.arrival_ms = arrival_ms;
}

void RunMetrics::bound(const std::string& job, int64_t t_ms) {
  const auto it = jobs_.find(job);
  if (it == jobs_.end()) return;
  Job& j = it->second;
  ++j.running;
  if (!j.ready_ms && j.running + j.succeeded >= j.min_member) j.ready_ms = t_ms;
}

void RunMetrics::lost(const std::string& job, bool node_removed) {
  if (node_removed) ++node_removal_losses_;
  if (const auto it = jobs_.find(job); it != jobs_.end() && it->second.running > 0)
    --it->second.running;
}

void RunMetrics::succeeded(const std::string& job, int64_t t_ms) {
  const auto it = jobs_.find(job);
  if (it == jobs_.end()) return;
  Job& j = it->second;
  if (j.running > 0) --j.running;
  ++j.succeeded;
  if (j.succeeded >= j.pods && !j.done_ms) j.done_ms = t_ms;
}

bool RunMetrics::done(const std::string& job) const {
  const auto it = jobs_.find(job);
  return it != jobs_.end() && it->second.done_ms.has_value();
}

void RunMetrics::evicted(const cycle::Outcome& outcome) {
  evicted_pods_ += outcome.evictions.size();
  for (const auto& [action, n] : outcome.eviction_transactions) evictions_[action] += n;
}

void RunMetrics::fit_bins(int64_t until_ms) {
  while (static_cast<size_t>((until_ms + bin_ms_ - 1) / bin_ms_) > kMaxBins) {
    for (auto& bins : occupancy_) {
      for (size_t i = 0; i < bins.size(); i += 2)
        bins[i / 2] = bins[i] + (i + 1 < bins.size() ? bins[i + 1] : 0.0);
      bins.resize((bins.size() + 1) / 2);
    }
    bin_ms_ *= 2;
  }
}

void RunMetrics::integrate_row(size_t r, int64_t until_ms) {
  int64_t& from = occupancy_since_[r];
  if (until_ms <= from) return;
  const double v = occupancy_now_[r];
  if (v > 0) {
    auto& row = occupancy_[r];
    const size_t bins = static_cast<size_t>((until_ms + bin_ms_ - 1) / bin_ms_);
    if (row.size() < bins) row.resize(bins, 0.0);
    for (int64_t at = from; at < until_ms;) {
      const auto b = static_cast<size_t>(at / bin_ms_);
      const int64_t edge = std::min<int64_t>(until_ms, static_cast<int64_t>(b + 1) * bin_ms_);
      row[b] += v * static_cast<double>(edge - at);
      at = edge;
    }
  }
  from = until_ms;
}

void RunMetrics::set_occupancy(size_t r, float v, int64_t t_ms) {
  if (v == occupancy_now_[r]) return;
  integrate_row(r, t_ms);
  occupancy_now_[r] = v;
}

size_t RunMetrics::sample(int64_t t_ms, const cycle::Snapshot& snapshot,
                          const cycle::Outcome& outcome) {
  fit_bins(t_ms);
  occupancy_from_ = std::max(occupancy_from_, t_ms);
  if (snapshot.dims.size() > dims_.size()) dims_ = snapshot.dims;
  const size_t dims = dims_.size();
  const size_t nodes = snapshot.nodes.size();
  // What the snapshot's tasks occupy, then the session's binds on top.
  tally_.update(snapshot, dims);
  std::vector<double>& used = used_;
  used.assign(tally_.used().begin(), tally_.used().end());
  // Nodes gone hold nothing from now on.
  if (map_nodes(snapshot))
    for (size_t r = 0; r < position_of_row_.size(); ++r)
      if (position_of_row_[r] < 0) set_occupancy(r, 0.0f, t_ms);

  // The tasks that wait (by their place in the snapshot, the session's
  // task index: Outcome::Bind::task, checked), less those the session
  // bound or pipelined; the binds on top of what is occupied.
  const std::vector<cycle::Snapshot::TaskIn>& tasks = snapshot.tasks;
  size_t still_pending = tally_.waiting();
  std::vector<size_t>& placed = placed_now_;
  placed.clear();
  const auto place_of = [&](const cycle::Outcome::Bind& b) -> size_t {
    if (b.task < tasks.size() && tasks[b.task].views->uid == b.pod) return b.task;
    for (size_t i = 0; i < tasks.size(); ++i)
      if (tasks[i].views->uid == b.pod) return i;
    return SIZE_MAX;
  };
  const auto take = [&](size_t at) {
    if (at == SIZE_MAX || !tally_.waits(at) ||
        std::find(placed.begin(), placed.end(), at) != placed.end())
      return false;
    placed.push_back(at);
    --still_pending;
    return true;
  };
  for (const auto& b : outcome.binds) {
    const size_t at = place_of(b);
    const auto row = node_row_.find(b.node);
    if (row == node_row_.end() || position_of_row_[row->second] < 0 || !take(at)) continue;
    const std::span<const double> req = tasks[at].resreq;
    const auto node = static_cast<size_t>(position_of_row_[row->second]);
    for (size_t d = 0; d < req.size() && d < dims; ++d) used[node * dims + d] += req[d];
  }
  for (const auto& p : outcome.pipelined) take(place_of(p));
  // The shapes of what waits (a job's tasks mostly alike: one each), then
  // those no other fits inside.
  std::vector<std::vector<double>> shapes;
  std::vector<double> asks(dims);
  for (size_t i = 0; still_pending > 0 && i < tasks.size(); ++i) {
    if (!tally_.waits(i) || std::find(placed.begin(), placed.end(), i) != placed.end()) continue;
    std::fill(asks.begin(), asks.end(), 0.0);
    const std::span<const double> req = tasks[i].resreq;
    std::copy_n(req.begin(), std::min(req.size(), dims), asks.begin());
    if (shapes.empty() || shapes.back() != asks) shapes.push_back(asks);
  }
  shapes = minimal_shapes(std::move(shapes));

  Sample s{t_ms, values_.size(), static_cast<uint32_t>(dims),
           static_cast<uint32_t>(sample_queues_.size()), 0};
  values_.resize(values_.size() + (kFields + 2 * outcome.queues.size()) * dims, 0.0);
  double* const field = values_.data() + s.at;
  double* const capacity = field + kCapacity * dims;
  double* const used_sum = field + kUsed * dims;
  double* const fragmented = field + kFragmented * dims;
  double* const free_sum = field + kFree * dims;
  std::vector<double> free(dims);
  for (size_t n = 0; n < nodes; ++n) {
    const auto& node = snapshot.nodes[n];
    if (!node.spec->ready || node.spec->unschedulable) continue;
    for (size_t d = 0; d < dims; ++d) {
      const double cap = d < node.allocatable.size() ? node.allocatable[d] : 0.0;
      capacity[d] += cap;
      used_sum[d] += used[n * dims + d];
      free[d] = std::max(0.0, cap - used[n * dims + d]);
      free_sum[d] += free[d];
    }
    const bool fits_some = std::any_of(shapes.begin(), shapes.end(), [&](const auto& shape) {
      for (size_t d = 0; d < dims; ++d)
        if (shape[d] > free[d] + 1e-9) return false;
      return true;
    });
    if (!fits_some && !shapes.empty())
      for (size_t d = 0; d < dims; ++d) fragmented[d] += free[d];
  }
  // Occupancy per node, from now until the next sample (a node's row is
  // integrated when its value changes).
  for (size_t n = 0; n < nodes; ++n) {
    const auto& node = snapshot.nodes[n];
    double share = 0;
    for (size_t d = 0; d < dims && d < node.allocatable.size(); ++d)
      if (d != SCORIA_DIM_PODS && node.allocatable[d] > 0)
        share = std::max(share, used[n * dims + d] / node.allocatable[d]);
    set_occupancy(row_of_[n], static_cast<float>(std::min(share, 1.0)), t_ms);
  }
  for (const auto& q : outcome.queues) {
    const auto [id, added] = queue_ids_.try_emplace(q.name, queue_names_.size());
    if (added) queue_names_.push_back(q.name);
    double* const allocated = field + (kFields + 2 * s.queues) * dims;
    std::copy_n(q.allocated.begin(), std::min(q.allocated.size(), dims), allocated);
    std::copy_n(q.deserved.begin(), std::min(q.deserved.size(), dims), allocated + dims);
    sample_queues_.push_back(id->second);
    ++s.queues;
  }
  samples_.push_back(s);
  return still_pending;
}

std::optional<size_t> RunMetrics::queue_in(const Sample& s, uint32_t q) const {
  for (size_t i = 0; i < s.queues; ++i)
    if (sample_queues_[s.first_queue + i] == q) return i;
  return std::nullopt;
}

bool RunMetrics::map_nodes(const cycle::Snapshot& snapshot) {
  const size_t nodes = snapshot.nodes.size();
  bool same = nodes == row_of_.size();
  for (size_t n = 0; same && n < nodes; ++n)
    same = snapshot.nodes[n].spec->name == node_names_[row_of_[n]];
  if (same) return false;
  row_of_.resize(nodes);
  for (size_t n = 0; n < nodes; ++n) {
    const std::string& name = snapshot.nodes[n].spec->name;
    const auto [it, added] = node_row_.try_emplace(name, node_names_.size());
    if (added) {
      node_names_.push_back(name);
      occupancy_.emplace_back();
      occupancy_now_.push_back(0.0f);
      occupancy_since_.push_back(0);
    }
    row_of_[n] = it->second;
  }
  position_of_row_.assign(node_names_.size(), -1);
  for (size_t n = 0; n < nodes; ++n) position_of_row_[row_of_[n]] = static_cast<int64_t>(n);
  return true;
}

nlohmann::ordered_json RunMetrics::occupancy_json(int64_t end_ms, size_t points) {
  const int64_t until = std::max(end_ms, occupancy_from_);
  fit_bins(until);
  for (size_t r = 0; r < occupancy_.size(); ++r) integrate_row(r, until);
  // Nodes by name, in bands of equal size (at most kMaxRows rows, so that a
  // thousand-node cluster charts in a screen), each the bands' average.
  std::vector<size_t> order(node_names_.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return node_names_[a] < node_names_[b]; });
  constexpr size_t kMaxRows = 100;
  const size_t per_row = std::max<size_t>(1, (order.size() + kMaxRows - 1) / kMaxRows);
  const size_t buckets = end_ms > 0 ? points : 0;
  const double width = buckets ? static_cast<double>(end_ms) / static_cast<double>(buckets) : 1;
  Json rows = Json::array();
  for (size_t first = 0; first < order.size(); first += per_row) {
    const size_t last = std::min(order.size(), first + per_row);
    std::vector<double> sum(buckets, 0.0);
    for (size_t i = first; i < last; ++i) {
      const auto& bins = occupancy_[order[i]];
      for (size_t b = 0; b < bins.size(); ++b) {
        // Each bin's integral goes to the bucket its middle falls in.
        const double mid = (static_cast<double>(b) + 0.5) * static_cast<double>(bin_ms_);
        const size_t k = std::min(buckets - 1, static_cast<size_t>(mid / width));
        if (buckets) sum[k] += bins[b];
      }
    }
    Json values = Json::array();
    for (double v : sum)
      values.push_back(round6(std::min(1.0, v / (width * static_cast<double>(last - first)))));
    const std::string label =
        last - first == 1 ? node_names_[order[first]]
                          : node_names_[order[first]] + " … " + node_names_[order[last - 1]];
    rows.push_back({{"nodes", label}, {"count", last - first}, {"values", std::move(values)}});
  }
  Json t_s = Json::array();
  for (size_t b = 0; b < buckets; ++b)
    t_s.push_back(round6(width * static_cast<double>(b) / 1000.0));
  return {{"t_s", std::move(t_s)}, {"rows", std::move(rows)}};
}

nlohmann::ordered_json RunMetrics::to_json(int64_t end_ms, size_t points) {
  Json out = Json::object();
  out["duration_s"] = seconds(end_ms);

  // Jobs, and their waits by queue.
  Json jobs = Json::object();
  auto& items = *jobs.get_ptr<Json::object_t*>();
  items.reserve(jobs_.size());
  std::map<std::string, std::vector<double>> waits, completions;
  std::vector<double> all_waits, all_completions;
  std::map<std::string, size_t> queue_jobs;
  for (const auto& [key, j] : jobs_) {
    Json e = {{"queue", j.queue}, {"arrival_s", seconds(j.arrival_ms)}};
    e["wait_s"] = j.ready_ms ? Json(seconds(*j.ready_ms - j.arrival_ms)) : Json(nullptr);
    e["completion_s"] = j.done_ms ? Json(seconds(*j.done_ms - j.arrival_ms)) : Json(nullptr);
    items.emplace_back(key, std::move(e));
    ++queue_jobs[j.queue];
    if (j.ready_ms) {
      waits[j.queue].push_back(seconds(*j.ready_ms - j.arrival_ms));
      all_waits.push_back(seconds(*j.ready_ms - j.arrival_ms));
    }
    if (j.done_ms) {
      completions[j.queue].push_back(seconds(*j.done_ms - j.arrival_ms));
      all_completions.push_back(seconds(*j.done_ms - j.arrival_ms));
    }
  }

  // Series.
  const size_t buckets = end_ms > 0 ? points : 0;
  const double width = buckets ? static_cast<double>(end_ms) / static_cast<double>(buckets) : 0;
  Json t_s = Json::array();
  for (size_t b = 0; b < buckets; ++b)
    t_s.push_back(round6(width * static_cast<double>(b) / 1000.0));
  std::vector<int64_t> times;
  times.reserve(samples_.size());
  for (const auto& s : samples_) times.push_back(s.t_ms);
  const auto series = [&](auto value) {
    std::vector<double> v;
    v.reserve(samples_.size());
    for (const auto& s : samples_) v.push_back(value(s));
    return bucketed(times, v, end_ms, buckets);
  };
  const auto ratio = [](double a, double b) { return b > 0 ? a / b : 0.0; };
  // The dimensions worth charting: cpu, memory and any extended resource
  // the cluster has (pods is a count, not a resource).
  std::vector<size_t> shown;
  for (size_t d = 0; d < dims_.size(); ++d) {
    if (d == SCORIA_DIM_PODS) continue;
    const bool present = std::any_of(samples_.begin(), samples_.end(),
                                     [&](const Sample& s) { return value(s, kCapacity, d) > 0; });
    if (d < SCORIA_DIM_PODS || present) shown.push_back(d);
  }
  Json util = {{"t_s", t_s}}, frag = {{"t_s", t_s}};
  Json mean_util = Json::object(), mean_frag = Json::object();
  for (size_t d : shown) {
    util[dims_[d]] =
        series([&](const Sample& s) { return ratio(value(s, kUsed, d), value(s, kCapacity, d)); });
    frag[dims_[d]] = series(
        [&](const Sample& s) { return ratio(value(s, kFragmented, d), value(s, kFree, d)); });
    double u = 0, f = 0;
    for (double v : util[dims_[d]]) u += v;
    for (double v : frag[dims_[d]]) f += v;
    mean_util[dims_[d]] = buckets ? round6(u / static_cast<double>(buckets)) : 0.0;
    mean_frag[dims_[d]] = buckets ? round6(f / static_cast<double>(buckets)) : 0.0;
  }

  // Queues: waits, and allocated against deserved share over time. The
  // fairness of a queue is its time-averaged allocated dominant share over
  // its deserved dominant share; Jain's index is taken over those.
  std::set<std::string> queue_names;
  for (const auto& [q, n] : queue_jobs) queue_names.insert(q);
  queue_names.insert(queue_names_.begin(), queue_names_.end());
  Json queues = Json::object();
  std::vector<double> fairness;
  for (const auto& q : queue_names) {
    Json e = Json::object();
    e["jobs"] = queue_jobs.count(q) ? queue_jobs.at(q) : 0;
    e["started"] = waits.count(q) ? waits.at(q).size() : 0;
    e["completed"] = completions.count(q) ? completions.at(q).size() : 0;
    e["wait_s"] = wait_stats(waits.count(q) ? waits.at(q) : std::vector<double>{});
    e["completion_s"] =
        wait_stats(completions.count(q) ? completions.at(q) : std::vector<double>{});
    Json share = {{"t_s", t_s}}, allocated = Json::object(), deserved = Json::object();
    bool any_deserved = false;
    const auto id = queue_ids_.find(q);
    // Where the queue sits in each sample (SIZE_MAX: absent).
    std::vector<size_t> position(samples_.size(), SIZE_MAX);
    if (id != queue_ids_.end())
      for (size_t i = 0; i < samples_.size(); ++i)
        position[i] = queue_in(samples_[i], id->second).value_or(SIZE_MAX);
    for (size_t d : shown) {
      const auto part = [&](const Sample& s, bool want_deserved) {
        const size_t at = position[static_cast<size_t>(&s - samples_.data())];
        if (at == SIZE_MAX) return 0.0;
        return ratio(queue_value(s, at, want_deserved, d), value(s, kCapacity, d));
      };
      allocated[dims_[d]] = series([&](const Sample& s) { return part(s, false); });
      deserved[dims_[d]] = series([&](const Sample& s) { return part(s, true); });
      for (double v : deserved[dims_[d]]) any_deserved = any_deserved || v > 0;
    }
    share["allocated"] = std::move(allocated);
    if (any_deserved) share["deserved"] = std::move(deserved);
    e["share"] = std::move(share);
    // Dominant shares, averaged over the time in which the queue was
    // entitled to something: a sample holds until the next one (sessions
    // the run skipped changed nothing), the last until the end. A run of
    // no duration takes its samples as they are.
    double weighted = 0, time = 0, sum = 0;
    size_t n = 0;
    for (size_t i = 0; i < samples_.size(); ++i) {
      const Sample& s = samples_[i];
      if (position[i] == SIZE_MAX) continue;
      double alloc = 0, want = 0;
      for (size_t d : shown) {
        alloc =
            std::max(alloc, ratio(queue_value(s, position[i], false, d), value(s, kCapacity, d)));
        want = std::max(want, ratio(queue_value(s, position[i], true, d), value(s, kCapacity, d)));
      }
      if (want <= 0) continue;
      const double dominant = std::min(alloc / want, 1.0);
      const int64_t until = i + 1 < samples_.size() ? samples_[i + 1].t_ms : end_ms;
      const auto held = static_cast<double>(std::max<int64_t>(0, until - s.t_ms));
      weighted += dominant * held;
      time += held;
      sum += dominant;
      ++n;
    }
    if (time > 0)
      fairness.push_back(weighted / time);
    else if (n > 0)
      fairness.push_back(sum / static_cast<double>(n));
    queues[q] = std::move(e);
  }
  double jain = 1.0;
  if (!fairness.empty()) {
    double s = 0, s2 = 0;
    for (double x : fairness) {
      s += x;
      s2 += x * x;
    }
    jain = s2 > 0 ? s * s / (static_cast<double>(fairness.size()) * s2) : 1.0;
  }

  Json by_action = Json::object();
  uint64_t preemptions = 0;
  for (const auto& [action, n] : evictions_) {
    by_action[action] = n;
    if (action.find("preempt") != std::string::npos) preemptions += n;
  }

  Json summary = Json::object();
  summary["jobs"] = jobs_.size();
  summary["started"] = all_waits.size();
  summary["completed"] = all_completions.size();
  const Json w = wait_stats(all_waits), c = wait_stats(all_completions);
  summary["mean_wait_s"] = w.is_null() ? Json(nullptr) : w["mean"];
  summary["p95_wait_s"] = w.is_null() ? Json(nullptr) : w["p95"];
  summary["mean_completion_s"] = c.is_null() ? Json(nullptr) : c["mean"];
  summary["utilisation"] = mean_util;
  summary["fragmentation"] = mean_frag;
  summary["evictions"] = evicted_pods_;
  summary["preemptions"] = preemptions;
  summary["lost_to_node_removal"] = node_removal_losses_;
  summary["jain_fairness"] = round6(jain);

  out["summary"] = std::move(summary);
  out["jobs"] = std::move(jobs);
  out["queues"] = std::move(queues);
  out["utilisation"] = std::move(util);
  out["fragmentation"] = std::move(frag);
  out["evictions"] = {{"pods", evicted_pods_}, {"transactions", by_action}};
  out["occupancy"] = occupancy_json(end_ms, points);
  return out;
}

}  // namespace scoria::simulation
