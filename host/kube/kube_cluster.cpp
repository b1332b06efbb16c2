#include "kube/kube_cluster.h"

#include <algorithm>
#include <random>

#include "api/object_meta.h"
#include "log/log.h"
#include "model/quantity.h"

namespace scoria::kube {

namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr std::string_view kWho = "kubernetes";
// A bind the server acknowledged but whose result the watch has not shown
// for this long is let go (kube-scheduler's assumed-pod expiry).
constexpr auto kAssumeTtl = std::chrono::seconds(30);

std::string join(const std::vector<std::string>& names, const char* sep) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : sep) + n;
  return out;
}

std::pair<std::string, std::string> split_key(const std::string& key) {
  const size_t slash = key.find('/');
  if (slash == std::string::npos) return {"default", key};
  return {key.substr(0, slash), key.substr(slash + 1)};
}

}  // namespace

KubeCluster::KubeCluster(KubeSourceOptions options)
    : options_(std::move(options)), client_(options_.client, options_.qps, options_.burst) {
  for (const api::Resource& r : api::resources())
    if (r.scheduled)
      reflectors_.push_back(std::make_unique<Reflector>(client_, r, queue_, options_.reflector));
  if (options_.leader_elect) {
    if (options_.election.lease_name.empty())
      options_.election.lease_name = join(options_.scheduler_names, "-");
    elector_ = std::make_unique<LeaderElector>(client_, options_.election);
  }
  writer_ = std::make_unique<Writer>(client_, queue_, elector_ ? elector_->leading() : always_,
                                     options_.write_workers);
}

KubeCluster::~KubeCluster() { stop(); }

void KubeCluster::start() {
  started_ = Clock::now();
  log::write(log::kInfo, kWho,
             "watching " + options_.client.origin + " for pods of scheduler " +
                 join(options_.scheduler_names, ", "));
  for (auto& r : reflectors_) r->start();
  writer_->start();
  if (elector_) elector_->start();
}

void KubeCluster::stop() {
  // The election last: writes under way end (or are cancelled) while this
  // process still holds the Lease.
  for (auto& r : reflectors_) r->stop();
  if (writer_) writer_->stop();
  if (elector_) elector_->stop();
}

bool KubeCluster::may_schedule() const { return !elector_ || elector_->leading(); }

KubeSourceStatus KubeCluster::status() const {
  KubeSourceStatus s;
  s.synced = synced_;
  s.leading = may_schedule();
  if (elector_) {
    s.identity = elector_->identity();
    s.holder = elector_->holder();
  }
  s.write_backlog = writer_->backlog();
  s.writes = writer_->stats();
  return s;
}

void KubeCluster::settle_binds(cache::ClusterCache& cache) {
  for (const BindSettled& s : writer_->take_settled()) {
    const auto it = assumed_.find(s.pod);
    if (it == assumed_.end()) continue;
    if (s.bound) {
      it->second.written = true;  // until the watch shows it
      continue;
    }
    // Pending again for a later session; the writer has also asked the
    // server for the pod as it is now, which follows through the queue.
    assumed_.erase(it);
    cache.forget_bind(s.pod);
  }
  const Clock::time_point now = Clock::now();
  std::erase_if(assumed_, [&](const auto& a) {
    return a.second.written && now - a.second.since > kAssumeTtl;
  });
}

void KubeCluster::note_pods(std::vector<cache::ObjectChange>& changes) {
  const Clock::time_point now = Clock::now();
  for (cache::ObjectChange& c : changes) {
    if (c.kind == cache::Kind::PodGroup && c.type == cache::ObjectChange::Type::Delete)
      written_status_.erase(c.key);
    if (c.kind == cache::Kind::Queue && c.type == cache::ObjectChange::Type::Delete)
      written_queue_.erase(c.key);
    if (c.kind != cache::Kind::Pod) continue;
    if (c.type == cache::ObjectChange::Type::Delete) {
      assumed_.erase(c.key);
      seen_at_.erase(c.key);
      unschedulable_pods_.erase(c.key);
      continue;
    }
    auto& pod = std::get<model::Pod>(c.object);
    if (const auto it = assumed_.find(c.key); it != assumed_.end()) {
      // The server's copy decides once it names a node (ours, or another
      // scheduler's if it won the race); until then the bind stands.
      if (pod.node_name.empty() && pod.phase == model::PodPhase::Pending)
        pod.node_name = it->second.node;
      else
        assumed_.erase(it);
    } else if (pod.node_name.empty()) {
      seen_at_.try_emplace(c.key, now);
    }
  }
}

std::optional<std::string> KubeCluster::refresh(cache::ClusterCache& cache) {
  settle_binds(cache);
  // Read before the queue is taken: a kind marked listed has all its list
  // in what is taken.
  const std::set<std::string> listed = synced_ ? std::set<std::string>() : queue_.listed();
  std::vector<cache::ObjectChange> changes = queue_.take();
  note_pods(changes);
  if (synced_) {
    if (!changes.empty()) cache.apply_changes(changes);
    return std::nullopt;
  }
  for (cache::ObjectChange& c : changes) initial_.push_back(std::move(c));
  std::vector<std::string> missing;
  for (const api::Resource& r : api::resources())
    if (r.scheduled && !listed.contains(std::string(r.plural))) missing.emplace_back(r.plural);
  const auto waiting = [&] {
    return "waiting for the first list of " + join(missing, ", ") + " from the API server";
  };
  // Pods wait for what they name; once the rest is in, they go to the cache
  // as their pages arrive, while later pages are still being read.
  if (!missing.empty() && !(missing.size() == 1 && missing[0] == "pods")) return waiting();
  if (ingested_ == 0) cache.set_scheduler_names(options_.scheduler_names);
  // The cache's load order (what is named before what names it), arrival
  // order kept within a kind.
  const auto rank = [](cache::Kind k) {
    switch (k) {
      case cache::Kind::Node:
        return 0;
      case cache::Kind::Queue:
        return 1;
      case cache::Kind::PriorityClass:
        return 2;
      case cache::Kind::PodGroup:
        return 3;
      case cache::Kind::Pod:
        return 4;
    }
    return 5;
  };
  std::stable_sort(initial_.begin(), initial_.end(),
                   [&](const auto& a, const auto& b) { return rank(a.kind) < rank(b.kind); });
  ingested_ += initial_.size();
  cache.apply_changes(initial_);
  initial_.clear();
  if (!missing.empty()) return waiting();
  synced_ = true;
  log::write(log::kInfo, kWho,
             "cache synced: " + std::to_string(ingested_) + " objects in " +
                 std::to_string(
                     std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started_)
                         .count()) +
                 "ms");
  return std::nullopt;
}

json KubeCluster::make_event(const std::string& kind, const std::string& api_version,
                             const std::string& key, const std::string& reason,
                             const std::string& type, const std::string& message) const {
  // Named as client-go's recorder names events: the object's name and a
  // unique hexadecimal suffix.
  static thread_local std::mt19937_64 random(std::random_device{}());
  const auto [ns, name] = split_key(key);
  char suffix[20];
  std::snprintf(suffix, sizeof suffix, ".%016llx", static_cast<unsigned long long>(random()));
  const std::string now = api::ObjectMeta::rfc3339(std::chrono::system_clock::now());
  const std::string component =
      options_.scheduler_names.empty() ? "volcano" : options_.scheduler_names[0];
  return {{"apiVersion", "v1"},
          {"kind", "Event"},
          {"metadata", {{"name", name + suffix}, {"namespace", ns}}},
          {"involvedObject",
           {{"kind", kind}, {"apiVersion", api_version}, {"namespace", ns}, {"name", name}}},
          {"reason", reason},
          {"message", message},
          {"type", type},
          {"source", {{"component", component}}},
          {"reportingComponent", component},
          {"firstTimestamp", now},
          {"lastTimestamp", now},
          {"count", 1}};
}

std::vector<double> KubeCluster::record(const session::Outcome& outcome,
                                        cache::ClusterCache& cache) {
  std::vector<WriteOp> ops;
  std::vector<double> latencies;
  const Clock::time_point now = Clock::now();
  for (const auto& bind : outcome.binds) {
    assumed_[bind.pod] = Assumed{bind.node, now, false};
    if (const auto it = seen_at_.find(bind.pod); it != seen_at_.end()) {
      latencies.push_back(std::chrono::duration<double, std::milli>(now - it->second).count());
      seen_at_.erase(it);
    }
    ops.push_back({WriteOp::Type::Bind, bind.pod, bind.node, {}});
    ops.push_back({WriteOp::Type::Event,
                   bind.pod,
                   {},
                   make_event("Pod", "v1", bind.pod, "Scheduled", "Normal",
                              "Successfully assigned " + bind.pod + " to " + bind.node)});
  }
  for (const auto& pod : outcome.evictions) {
    ops.push_back({WriteOp::Type::Evict, pod, {}, {}});
    ops.push_back({WriteOp::Type::Event,
                   pod,
                   {},
                   make_event("Pod", "v1", pod, "Evict", "Warning",
                              "Pod is evicted, because of preemption or reclaim")});
  }
  std::vector<WriteOp> background;
  for (const auto& st : outcome.pod_groups) {
    // Each pending member of an unschedulable job: PodScheduled=False and a
    // FailedScheduling event, when its message changes (Volcano's
    // taskUnschedulable writes both only then).
    for (const std::string& pod : st.pending) {
      std::string& said = unschedulable_pods_[pod];
      if (said == st.unschedulable) continue;
      said = st.unschedulable;
      background.push_back({WriteOp::Type::PodCondition,
                            pod,
                            {},
                            json{{"type", "PodScheduled"},
                                 {"status", "False"},
                                 {"reason", "Unschedulable"},
                                 {"message", st.unschedulable},
                                 {"lastTransitionTime",
                                  api::ObjectMeta::rfc3339(std::chrono::system_clock::now())}}});
      background.push_back(
          {WriteOp::Type::Event,
           pod,
           {},
           make_event("Pod", "v1", pod, "FailedScheduling", "Warning", st.unschedulable)});
    }
    if (st.key.empty()) continue;
    const std::string phase = model::phase_name(st.phase);
    auto& written = written_status_[st.key];
    if (written.first == phase && written.second == st.unschedulable) continue;
    const bool message_changed = written.second != st.unschedulable;
    written = {phase, st.unschedulable};
    json status = {{"phase", phase},
                   {"running", st.running},
                   {"succeeded", st.succeeded},
                   {"failed", st.failed}};
    if (st.unschedulable.empty()) {
      status["conditions"] = nullptr;
    } else {
      status["conditions"] = json::array(
          {{{"type", "Unschedulable"},
            {"status", "True"},
            {"reason", "NotEnoughResources"},
            {"message", st.unschedulable},
            {"lastTransitionTime", api::ObjectMeta::rfc3339(std::chrono::system_clock::now())}}});
    }
    ops.push_back({WriteOp::Type::PodGroupStatus, st.key, {}, std::move(status)});
    if (message_changed && !st.unschedulable.empty())
      ops.push_back({WriteOp::Type::Event,
                     st.key,
                     {},
                     make_event("PodGroup", "scheduling.volcano.sh/v1beta1", st.key,
                                "Unschedulable", "Warning", st.unschedulable)});
  }
  // Queue status: what is allocated in each queue, as Volcano's scheduler
  // writes it, when it changed.
  const std::vector<std::string>& dims = cache.dims();
  for (const auto& q : outcome.queues) {
    json allocated = json::object();
    for (size_t d = 0; d < dims.size() && d < q.allocated.size(); ++d)
      if (q.allocated[d] > 0 && dims[d] != "pods")
        allocated[dims[d]] = model::format_quantity(dims[d], q.allocated[d]);
    std::string text = allocated.dump();
    std::string& written = written_queue_[q.name];
    if (written == text) continue;
    written = std::move(text);
    ops.push_back({WriteOp::Type::QueueStatus, q.name, {}, json{{"allocated", allocated}}});
  }
  for (const auto& bind : outcome.binds) unschedulable_pods_.erase(bind.pod);
  writer_->submit(std::move(ops));
  writer_->submit_background(std::move(background));
  cache.apply(outcome);
  return latencies;
}

const std::string* KubeCluster::unschedulable_reason(std::string_view podgroup) const {
  const auto it = written_status_.find(std::string(podgroup));
  if (it == written_status_.end() || it->second.second.empty()) return nullptr;
  return &it->second.second;
}

}  // namespace scoria::kube
