// A small session built by hand for unit tests: nodes, queues and jobs with
// tasks, without files or plugins.
#pragma once

#include <deque>
#include <string>
#include <vector>

#include "config/scheduler_config.h"
#include "model/objects.h"
#include "session/session.h"

namespace scoria::test_support {

class SessionFixture {
 public:
  SessionFixture() { snap.dims = {"cpu", "memory", "pods"}; }

  /// Adds a node with `cpu_m` millicores and `mem` bytes.
  size_t node(const std::string& name, double cpu_m, double mem, double pods = 110) {
    auto& n = nodes_.emplace_back();
    n.name = name;
    vectors_.push_back({cpu_m, mem, pods});
    snap.nodes.push_back({&n, vectors_.back()});
    return snap.nodes.size() - 1;
  }
  size_t queue(const std::string& name) {
    auto& q = queues_.emplace_back();
    q.name = name;
    vectors_.push_back({1e18, 1e18, 1e18});
    vectors_.push_back({0, 0, 0});
    snap.queues.push_back({&q, vectors_[vectors_.size() - 2], vectors_.back(), vectors_.back()});
    return snap.queues.size() - 1;
  }
  /// Adds a job with `tasks` pending tasks asking `cpu_m` each.
  size_t job(const std::string& name, int32_t min_member, size_t tasks, double cpu_m,
             int32_t queue = 0, int64_t created = 0) {
    auto& g = groups_.emplace_back();
    g.namespace_ = "ns";
    g.name = name;
    g.min_member = min_member;
    g.creation_ms = created;
    vectors_.push_back({0, 0, 0});
    snap.jobs.push_back({&g, queue, 0, model::PodGroupPhase::Inqueue, vectors_.back(), {}});
    snap.jobs.back().fields = cycle::GroupFields::of(g);
    tasks_.emplace_back();
    for (size_t i = 0; i < tasks; ++i)
      task(snap.jobs.size() - 1, name + "-" + std::to_string(i), cpu_m);
    return snap.jobs.size() - 1;
  }
  void task(size_t job, const std::string& name, double cpu_m,
            uint32_t status = SCORIA_TASK_PENDING, int32_t node = -1, int32_t priority = 0) {
    auto& p = pods_.emplace_back();
    p.namespace_ = "ns";
    p.name = name;
    auto& v = views_.emplace_back();
    v.uid = "ns/" + name;
    vectors_.push_back({cpu_m, 0, 1});
    // Each job's tasks in a list of its own (a snapshot keeps them side by
    // side; a session reads them through the job's span alike).
    tasks_[job].push_back(
        {&p, &v, status, node, priority, p.features, vectors_.back(), vectors_.back()});
    snap.jobs[job].tasks = tasks_[job];
  }

  cycle::Snapshot snap;
  config::SchedulerConfig config;

 private:
  std::deque<model::Node> nodes_;
  std::deque<model::Queue> queues_;
  std::deque<model::PodGroup> groups_;
  std::deque<model::Pod> pods_;
  std::deque<cycle::TaskViews> views_;
  std::deque<std::vector<double>> vectors_;
  std::deque<std::vector<cycle::Snapshot::TaskIn>> tasks_;  // by job
};

}  // namespace scoria::test_support
