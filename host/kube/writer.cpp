#include "kube/writer.h"

#include <algorithm>
#include <chrono>
#include <random>
#include <stdexcept>
#include <utility>

#include "api/decision_reports.h"
#include "http/client.h"
#include "kube/decode_change.h"
#include "log/log.h"

namespace scoria::kube {

namespace {

using nlohmann::json;

constexpr auto kTimeout = std::chrono::seconds(30);
constexpr int kAttempts = 5;

struct NamespacedName {
  std::string ns, name;
};

NamespacedName split(const std::string& key) {
  const size_t slash = key.find('/');
  if (slash == std::string::npos) return {"default", key};
  return {key.substr(0, slash), key.substr(slash + 1)};
}

std::string pod_path(const std::string& key) {
  const NamespacedName n = split(key);
  return http::path_of({"api", "v1", "namespaces", n.ns, "pods", n.name});
}

std::string pod_group_path(const std::string& key) {
  const NamespacedName n = split(key);
  return http::path_of(
      {"apis", "scheduling.volcano.sh", "v1beta1", "namespaces", n.ns, "podgroups", n.name});
}

std::string native_group_path(const std::string& key) {
  const NamespacedName n = split(key);
  return http::path_of(
      {"apis", "scheduling.k8s.io", "v1beta1", "namespaces", n.ns, "podgroups", n.name});
}

// 401 too: a rotated token is read again for the next try.
bool retryable(unsigned status) {
  return status == 429 || status >= 500 || status == 0 || status == 401;
}

// Bind stage times held for the metrics at most (a few sessions' worth).
constexpr size_t kStageTimesKept = 100000;

double bind_stage_ms(Clock::time_point since) {
  return std::chrono::duration<double, std::milli>(Clock::now() - since).count();
}

}  // namespace

Writer::Writer(ApiClient& client, ChangeQueue& resync, const std::atomic<bool>& leading,
               size_t workers)
    : client_(client),
      resync_(resync),
      leading_(leading),
      worker_count_(std::max<size_t>(1, workers)) {}

Writer::~Writer() { stop(); }

void Writer::start() {
  for (size_t i = 0; i < worker_count_; ++i) workers_.emplace_back([this] { work(); });
}

void Writer::stop() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
    for (Connection* c : connections_) c->cancel();
  }
  wake_.notify_all();
  for (std::thread& t : workers_)
    if (t.joinable()) t.join();
  workers_.clear();
}

void Writer::submit(std::vector<WriteOp> ops) {
  if (ops.empty()) return;
  {
    std::lock_guard lock(mutex_);
    for (WriteOp& op : ops) queue_.push_back(std::move(op));
  }
  wake_.notify_all();
}

void Writer::submit_background(std::vector<WriteOp> ops) {
  if (ops.empty()) return;
  {
    std::lock_guard lock(mutex_);
    for (WriteOp& op : ops) background_.push_back(std::move(op));
  }
  wake_.notify_all();
}

std::vector<BindSettled> Writer::take_settled() {
  std::lock_guard lock(mutex_);
  return std::exchange(settled_, {});
}

BindStageTimes Writer::take_stage_times() {
  std::lock_guard lock(mutex_);
  return std::exchange(stage_times_, {});
}

void Writer::note_stage(std::vector<double> BindStageTimes::*stage, double ms) {
  std::lock_guard lock(mutex_);
  // Taken every session; bounded all the same, should none take them.
  std::vector<double>& times = stage_times_.*stage;
  if (times.size() < kStageTimesKept) times.push_back(ms);
}

size_t Writer::backlog() const {
  std::lock_guard lock(mutex_);
  return queue_.size() + background_.size() + in_flight_;
}

WriterStats Writer::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

void Writer::settle(const std::string& pod, bool bound) {
  std::lock_guard lock(mutex_);
  settled_.push_back({pod, bound});
  if (bound)
    ++stats_.binds;
  else
    ++stats_.bind_failures;
}

namespace {

// Writes whose order matters per object: a PodGroup's or a Queue's status,
// and a pod's PodScheduled condition. Each is sent only when it changed,
// so one that lands out of order is never put right.
bool is_status(const WriteOp& op) {
  return op.type == WriteOp::Type::PodGroupStatus || op.type == WriteOp::Type::NativeGroupStatus ||
         op.type == WriteOp::Type::QueueStatus || op.type == WriteOp::Type::PodCondition ||
         op.type == WriteOp::Type::NodeShardStatus;
}

}  // namespace

std::deque<WriteOp>::iterator Writer::next_op(std::deque<WriteOp>& from) {
  return std::find_if(from.begin(), from.end(), [this](const WriteOp& op) {
    return !is_status(op) ||
           std::none_of(statuses_in_flight_.begin(), statuses_in_flight_.end(),
                        [&](const WriteOp* w) { return w->type == op.type && w->key == op.key; });
  });
}

void Writer::work() {
  std::unique_ptr<Connection> connection = client_.connect();
  {
    std::lock_guard lock(mutex_);
    connections_.push_back(connection.get());
  }
  for (;;) {
    WriteOp op;
    {
      std::unique_lock lock(mutex_);
      std::deque<WriteOp>* from = nullptr;
      std::deque<WriteOp>::iterator it;
      wake_.wait(lock, [&] {
        if (stop_) return true;
        for (std::deque<WriteOp>* q : {&queue_, &background_})
          if (it = next_op(*q); it != q->end()) {
            from = q;
            return true;
          }
        return false;
      });
      if (stop_) break;
      op = std::move(*it);
      from->erase(it);
      if (is_status(op)) statuses_in_flight_.push_back(&op);
      ++in_flight_;
    }
    try {
      if (leading_) {
        execute(*connection, op);
      } else if (op.type == WriteOp::Type::Bind) {
        settle(op.key, false);
      }
    } catch (const Cancelled&) {
      if (op.type == WriteOp::Type::Bind) settle(op.key, false);
    } catch (const std::exception& e) {
      log::write(log::kWarning, kKubernetesLog, std::string("a write failed: ") + e.what());
      if (op.type == WriteOp::Type::Bind) settle(op.key, false);
    }
    {
      std::lock_guard lock(mutex_);
      --in_flight_;
      std::erase(statuses_in_flight_, &op);
    }
    if (is_status(op)) wake_.notify_all();  // a status of the same object may wait
  }
  std::lock_guard lock(mutex_);
  std::erase(connections_, connection.get());
}

void Writer::execute(Connection& c, WriteOp& op) {
  // Status fields written over the object's as a merge patch would.
  const auto merge = [&op](json& object) {
    api::merge_status(object, op.status);
    return true;
  };
  switch (op.type) {
    case WriteOp::Type::Bind:
      return bind(c, op);
    case WriteOp::Type::Evict:
      return evict(c, op);
    case WriteOp::Type::PodGroupStatus:
      return status_update(c, pod_group_path(op.key), "PodGroup " + op.key, merge);
    case WriteOp::Type::NativeGroupStatus:
      return status_update(c, native_group_path(op.key), "PodGroup " + op.key, [&op](json& group) {
        std::optional<json> condition =
            api::initially_scheduled_condition(group, op.status, std::chrono::system_clock::now());
        return condition && api::set_condition(group, std::move(*condition));
      });
    case WriteOp::Type::QueueStatus:
      return status_update(
          c, http::path_of({"apis", "scheduling.volcano.sh", "v1beta1", "queues", op.key}),
          "Queue " + op.key, merge);
    case WriteOp::Type::NodeShardStatus:
      return status_update(
          c, http::path_of({"apis", "shard.volcano.sh", "v1alpha1", "nodeshards", op.key}),
          "NodeShard " + op.key, merge);
    case WriteOp::Type::Event:
      return event(c, op);
    case WriteOp::Type::PodCondition:
      return pod_condition(c, op);
    case WriteOp::Type::EnsureQueue:
      return ensure_queue(c, op);
    case WriteOp::Type::LiftGate:
      return lift_gate(c, op);
  }
}

Response Writer::call(Connection& c, std::string_view method, const std::string& target,
                      const std::string& body, std::string_view content_type) {
  thread_local std::minstd_rand random(std::random_device{}());
  auto backoff = std::chrono::milliseconds(100);
  for (int attempt = 1;; ++attempt) {
    if (!client_.admit(stop_)) throw Cancelled();
    Response r;
    try {
      r = c.request(method, target, body, content_type, kTimeout);
    } catch (const TransportError& e) {
      if (attempt >= kAttempts) throw;
      r.status = 0;
    }
    if (!retryable(r.status) || attempt >= kAttempts) return r;
    {
      std::lock_guard lock(mutex_);
      ++stats_.retries;
    }
    std::uniform_real_distribution<double> jitter(1.0, 2.0);
    auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(backoff * jitter(random));
    if (r.retry_after)
      wait = std::max<std::chrono::milliseconds>(wait, std::chrono::milliseconds(*r.retry_after));
    backoff *= 2;
    const auto until = Clock::now() + wait;
    while (!stop_ && Clock::now() < until)
      std::this_thread::sleep_for(
          std::min<Clock::duration>(until - Clock::now(), std::chrono::milliseconds(50)));
    if (stop_) throw Cancelled();
  }
}

std::string Writer::bind_volumes(Connection& c, const WriteOp& op) {
  std::string failed;
  for (const cycle::Outcome::VolumeBinding& v : op.volumes) {
    failed = bind_volume(c, v);
    if (!failed.empty()) break;
  }
  return failed;
}

std::string Writer::bind_volume(Connection& c, const cycle::Outcome::VolumeBinding& v) {
  const NamespacedName claim = split(v.claim);
  const std::string claim_path =
      http::path_of({"api", "v1", "namespaces", claim.ns, "persistentvolumeclaims", claim.name});
  if (v.provision) {
    const json patch = {
        {"metadata", {{"annotations", {{"volume.kubernetes.io/selected-node", v.node}}}}}};
    const Response r = call(c, "PATCH", claim_path, patch.dump(), "application/merge-patch+json");
    if (r.status != 200) {
      // The next session decides on what the server has.
      reread(c, cache::Kind::PersistentVolumeClaim, claim_path, v.claim);
      return "claim " + v.claim + ": " + status_message(r);
    }
    assume(r.body, cache::Kind::PersistentVolumeClaim, v.claim);
    return {};
  }
  const std::string path = http::path_of({"api", "v1", "persistentvolumes", v.volume});
  const auto refused = [&](const std::string& why) {
    reread(c, cache::Kind::PersistentVolume, path, v.volume);
    return "volume " + v.volume + why;
  };
  const Response got = call(c, "GET", path, "");
  if (got.status != 200) return refused(": " + status_message(got));
  json pv = parse_answer(got.body);
  if (!pv.is_object()) return "volume " + v.volume + ": the server's answer is not an object";
  json& spec = pv["spec"];
  if (const auto ref = spec.find("claimRef"); ref != spec.end() && ref->is_object()) {
    // Taken since the session chose it, unless by this very claim.
    if (ref->value("namespace", "") != claim.ns || ref->value("name", "") != claim.name) {
      assume(got.body, cache::Kind::PersistentVolume, v.volume);
      return "volume " + v.volume + " is bound to another claim";
    }
  }
  spec["claimRef"] = {{"kind", "PersistentVolumeClaim"},
                      {"apiVersion", "v1"},
                      {"namespace", claim.ns},
                      {"name", claim.name}};
  if (!v.claim_uid.empty()) spec["claimRef"]["uid"] = v.claim_uid;
  json& annotations = pv["metadata"]["annotations"];
  if (!annotations.is_object()) annotations = json::object();
  if (!annotations.contains("pv.kubernetes.io/bound-by-controller"))
    annotations["pv.kubernetes.io/bound-by-controller"] = "yes";
  // metadata.resourceVersion, as read: a concurrent change is a conflict.
  const Response put = call(c, "PUT", path, pv.dump());
  if (put.status != 200) return refused(": " + status_message(put));
  assume(put.body, cache::Kind::PersistentVolume, v.volume);
  return {};
}

void Writer::bind(Connection& c, const WriteOp& op) {
  const NamespacedName n = split(op.key);
  // Volumes and devices first: a pod bound without them could never start.
  // Timed as Volcano times its PreBind, which runs (and is timed) for every
  // bind, with or without volumes and claims.
  const Clock::time_point pre_bind_start = Clock::now();
  std::string failed = bind_volumes(c, op);
  const char* what = "volumes";
  if (failed.empty()) {
    failed = bind_claims(c, op);
    what = "resource claims";
  }
  if (failed.empty()) note_stage(&BindStageTimes::pre_bind_ms, bind_stage_ms(pre_bind_start));
  if (!failed.empty()) {
    log::write(log::kWarning, kKubernetesLog,
               std::string("binding the ") + what + " of pod " + op.key + " failed (" + failed +
                   "); the pod is not bound, and is read again and left to a later session");
    settle(op.key, false);
    resync(c, op.key);
    return;
  }
  json binding = {{"apiVersion", "v1"},
                  {"kind", "Binding"},
                  {"metadata", {{"name", n.name}, {"namespace", n.ns}}},
                  {"target", {{"apiVersion", "v1"}, {"kind", "Node"}, {"name", op.node}}}};
  // As Volcano HEAD binds: the scheduler's annotations (a device plugin's
  // card choice) ride on the Binding, and the API server writes them on the
  // pod together with spec.nodeName, so a pod never carries a card choice
  // for a bind that failed.
  if (!op.annotations.empty()) {
    json annotations = json::object();
    for (const auto& [key, value] : op.annotations) annotations[key] = value;
    binding["metadata"]["annotations"] = std::move(annotations);
  }
  const Clock::time_point bind_start = Clock::now();
  const Response r = call(c, "POST", pod_path(op.key) + "/binding", binding.dump());
  if (r.status == 200 || r.status == 201) {
    note_stage(&BindStageTimes::bind_ms, bind_stage_ms(bind_start));
    settle(op.key, true);
    return;
  }
  // 409: bound by someone else (or by us, an earlier try that timed out);
  // 404: gone. Either way the cache takes the pod as the server has it.
  if (r.status != 409 && r.status != 404)
    log::write(log::kWarning, kKubernetesLog,
               "binding pod " + op.key + " to " + op.node + " failed: " + status_message(r) +
                   "; the pod is read again and left to a later session");
  settle(op.key, false);
  resync(c, op.key);
}

void Writer::evict(Connection& c, const WriteOp& op) {
  const NamespacedName n = split(op.key);
  const json eviction = {{"apiVersion", "policy/v1"},
                         {"kind", "Eviction"},
                         {"metadata", {{"name", n.name}, {"namespace", n.ns}}}};
  const Response r = call(c, "POST", pod_path(op.key) + "/eviction", eviction.dump());
  const bool done = r.status == 200 || r.status == 201 || r.status == 404;
  {
    std::lock_guard lock(mutex_);
    ++(done ? stats_.evictions : stats_.eviction_failures);
  }
  if (done) return;
  log::write(
      log::kInfo, kKubernetesLog,
      "evicting pod " + op.key + " was refused: " + status_message(r) +
          (r.status == 429 ? " (a disruption budget); a later session may decide again" : ""));
  // The pod keeps running: the cache hears it again.
  resync(c, op.key);
}

void Writer::status_update(Connection& c, const std::string& path, const std::string& what,
                           const std::function<bool(json&)>& change) {
  for (int attempt = 1; attempt <= kAttempts; ++attempt) {
    const Response got = call(c, "GET", path, "");
    if (got.status == 404) return;  // deleted meanwhile
    if (got.status != 200) throw ApiError("reading " + what, got);
    json group = parse_answer(got.body);
    if (!group.is_object()) throw TransportError(what + " is not JSON");
    if (!change(group)) return;
    // The resourceVersion read makes the update conditional: 409 if the
    // group changed since, and then it is read and written again.
    const Response put = call(c, "PUT", path + "/status", group.dump());
    if (put.status == 200 || put.status == 201) {
      std::lock_guard lock(mutex_);
      ++stats_.statuses;
      return;
    }
    if (put.status == 404) return;
    if (put.status != 409) throw ApiError("writing the status of " + what, put);
    std::lock_guard lock(mutex_);
    ++stats_.retries;
  }
  log::write(log::kWarning, kKubernetesLog,
             "the status of " + what + " kept conflicting; a later session writes it");
}

void Writer::event(Connection& c, const WriteOp& op) {
  const std::string ns = op.status["metadata"].value("namespace", "default");
  const Response r =
      call(c, "POST", http::path_of({"api", "v1", "namespaces", ns, "events"}), op.status.dump());
  if (r.status != 200 && r.status != 201)
    log::write(log::kInfo, kKubernetesLog, "an event was not recorded: " + status_message(r));
  std::lock_guard lock(mutex_);
  ++stats_.events;
}

void Writer::pod_condition(Connection& c, const WriteOp& op) {
  // Strategic merge: conditions merge by type, so only PodScheduled is
  // touched and no read is needed first.
  const json patch = {{"status", {{"conditions", json::array({op.status})}}}};
  const Response r = call(c, "PATCH", pod_path(op.key) + "/status", patch.dump(),
                          "application/strategic-merge-patch+json");
  if (r.status == 404) return;  // gone meanwhile
  if (r.status != 200)
    log::write(log::kInfo, kKubernetesLog,
               "the condition of pod " + op.key + " was not written: " + status_message(r));
  std::lock_guard lock(mutex_);
  ++stats_.conditions;
}

void Writer::lift_gate(Connection& c, const WriteOp& op) {
  // Volcano's RemoveVolcanoSchGate: a strategic merge deleting the gate by
  // name, so that other gates and a concurrent change are left alone.
  const json gate = {{"name", model::kQueueAllocationGate}, {"$patch", "delete"}};
  const json patch = {{"spec", {{"schedulingGates", json::array({gate})}}}};
  const Response r =
      call(c, "PATCH", pod_path(op.key), patch.dump(), "application/strategic-merge-patch+json");
  if (r.status == 200) {
    assume(r.body, cache::Kind::Pod, op.key);
    return;
  }
  if (r.status == 404) return;  // gone meanwhile
  log::write(log::kWarning, kKubernetesLog,
             "the queue-allocation gate of pod " + op.key + " was not removed (" +
                 status_message(r) + "); a later session lifts it again");
}

void Writer::ensure_queue(Connection& c, const WriteOp& op) {
  const std::string queues = http::path_of({"apis", "scheduling.volcano.sh", "v1beta1", "queues"});
  const Response got = call(c, "GET", queues + "/" + op.key, "");
  if (got.status == 200) return;
  if (got.status == 404) {
    const Response made = call(c, "POST", queues, op.status.dump());
    // 409: another scheduler made it meanwhile.
    if (made.status == 201 || made.status == 200 || made.status == 409) {
      if (made.status != 409) log::write(log::kInfo, kKubernetesLog, "created the Queue " + op.key);
      return;
    }
    if (made.status == 404) {  // the group is not served: said where it is listed
      log::write(log::kInfo, kKubernetesLog,
                 "the Queue " + op.key + " was not created: the API server serves no Queues");
      return;
    }
    log::write(log::kWarning, kKubernetesLog,
               "the Queue " + op.key + " could not be created: " + status_message(made) +
                   "; jobs that name it still schedule in it, but kubectl does not list it "
                   "(give this scheduler's role create on queues)");
    return;
  }
  log::write(log::kWarning, kKubernetesLog,
             "whether the Queue " + op.key + " exists could not be read: " + status_message(got));
}

void Writer::resync(Connection& c, const std::string& key) {
  reread(c, cache::Kind::Pod, pod_path(key), key);
}

void Writer::reread(Connection& c, cache::Kind kind, const std::string& path,
                    const std::string& key) {
  const std::string what = std::string(cache::kind_name(kind)) + " " + key;
  const Response r = call(c, "GET", path, "");
  if (r.status == 404) {
    resync_.push(cache::ObjectChange::remove(kind, key));
    return;
  }
  if (r.status != 200) {
    log::write(
        log::kWarning, kKubernetesLog,
        what + " cannot be read again (" + status_message(r) + "); the watch will bring its state");
    return;
  }
  assume(r.body, kind, key);
}

void Writer::assume(const std::string& body, cache::Kind kind, const std::string& key) {
  const std::string what = std::string(cache::kind_name(kind)) + " " + key;
  json object = parse_answer(body);
  const api::Resource* resource = api::find_kind(cache::kind_name(kind));
  std::vector<cache::ObjectChange> changes;
  try {
    if (resource == nullptr || !object.is_object()) throw std::runtime_error("not an object");
    decode_change(object, *resource, changes);
  } catch (const std::exception& e) {
    log::write(log::kWarning, kKubernetesLog,
               what + " as the server answered does not decode (" + e.what() +
                   "); the watch will bring its state");
    return;
  }
  resync_.push(std::move(changes));
}

}  // namespace scoria::kube
