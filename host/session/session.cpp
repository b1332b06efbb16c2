#include "session/session.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <type_traits>

#include "model/resource.h"
#include "plugin/crash_report.h"
#include "plugin/reason_table.h"
#include "session/statement.h"
#include "session/sub_jobs.h"
#include "session/task_status.h"

namespace scoria::session {

namespace {

// Sessions drop these by the hundred thousand and build them again: freeing
// them must cost nothing (what a record would own lives in the session).
static_assert(std::is_trivially_destructible_v<Task>);
static_assert(std::is_trivially_destructible_v<Job>);
static_assert(std::is_trivially_destructible_v<SubJob>);
using model::add;

}  // namespace

Session::Session(const Snapshot& snap, const config::SchedulerConfig& config, WorkerPool* workers,
                 SessionMemory* memory)
    : config_(config),
      workers_(workers),
      memory_(memory),
      now_ms_(snap.now_ms),
      dim_names_(snap.dims),
      namespaces_(snap.namespaces),
      objects_(snap.objects) {
  if (memory_ != nullptr) {
    number_ = ++memory_->sessions;
    swap_kept(*memory_);
    node_tasks_ = &memory_->node_tasks;
  } else {
    node_tasks_ = &own_node_tasks_.emplace();
  }
  kept_records_ = memory_ != nullptr && keep_records(snap);
  if (!kept_records_) write_records(snap);

  if (config_.equivalence_cache) {
    equivalence_ = memory_ != nullptr ? &memory_->equivalence : &own_equivalence_.emplace();
    equivalence_->reset(nodes_.size());
  }
  all_nodes_.reserve(nodes_.size());
  for (const Node& n : nodes_) all_nodes_.push_back(&n);
  search_.open(all_nodes_, dims(), equivalence_);
  volumes_.reset(snap.storage, tasks_);
  devices_.reset(snap.devices, tasks_, nodes_);
  prepare_network_topologies(snap.hyper_nodes);

  insufficient_reason_.resize(dims());
  for (size_t k = 0; k < dims(); ++k)
    insufficient_reason_[k] = plugin::intern_reason("Insufficient " + dim_names_[k]);
  undefined_answer_reason_ =
      plugin::intern_reason("node(s) were refused by a plugin's undefined answer");
  sharding_ = snap.sharding;
  in_shard_ = snap.in_shard;
  in_shard_.resize(nodes_.size(), 0);
  not_in_shard_reason_ = plugin::intern_reason(model::kNotInShard);

  changes_at_open_ = changes_;
  if (kept_sums_) queue_sums_at_ = changes_ + 1;  // what queue_job_sums() answers now
  if (memory_ != nullptr) {
    note_opening(snap);
    if (kept_records_ && memory_->verify) verify_records(snap);
    tracking_ = true;  // a session without memory keeps nothing for a next one
  }
}

void Session::write_records(const Snapshot& snap) {
  jobs_.clear();
  tasks_.clear();
  sub_jobs_.clear();
  nodes_.clear();  // their lists first: the buffer they sit in is given back
  node_tasks_->release();
  featured_.clear();
  topology_jobs_.clear();
  placed_.clear();
  sub_job_members_.clear();
  made_keys_.clear();
  noting_requests_ = memory_ != nullptr && config_.equivalence_cache && snap.exact_vectors &&
                     snap.changes.writer != 0;
  exact_ = ExactSums::starting(noting_requests_);

  const size_t d = dims();
  // Vectors a session never writes (requests, allocatable, queue bounds,
  // minResources) are read in the snapshot, where the cache keeps them; only
  // one shorter than the session's dimensions is copied, padded with zeros.
  const auto is_short = [d](std::span<const double> v) -> size_t { return v.size() < d; };
  size_t task_count = snap.tasks.size();
  size_t short_vectors = 0;
  // Tasks on each node, to size its list; when the snapshot's writer vouches
  // for its vectors and no pass over them is made, each list starts at the
  // average (from the node task buffer: a list that outgrows it moves once
  // or twice, the rest never).
  std::vector<uint32_t> tasks_on;
  if (!snap.exact_vectors) {
    task_count = 0;
    tasks_on.assign(snap.nodes.size(), 0);
    for (const auto& j : snap.jobs) {
      task_count += j.tasks.size();
      short_vectors += is_short(j.min_resources);
      for (const auto& tin : j.tasks) {
        short_vectors += is_short(tin.resreq) + is_short(tin.init_resreq);
        if (tin.node >= 0 && (tin.status & kCompletedMask) == 0)
          ++tasks_on[static_cast<size_t>(tin.node)];
      }
    }
  }
  short_vectors += short_header_vectors(snap);
  // One arena for what a session writes and the short vectors: nodes (4
  // each), then jobs (2 each), at places a later session keeps; then the
  // queues (1 each) and the short vectors, laid out again each session.
  // With room for that tail and for jobs that arrive later, so that a later
  // session keeping these records never moves them.
  const size_t fixed = d * (4 * snap.nodes.size() + 2 * snap.jobs.size());
  const size_t tail = d * (short_vectors + snap.queues.size());
  arena_.clear();
  arena_.reserve(fixed + tail +
                 d * (snap.nodes.size() + 4 * snap.queues.size() + 2 * snap.jobs.size() / 8 + 64));
  arena_.assign(fixed + tail, 0.0);
  tail_ = arena_.data() + fixed;

  write_queues(snap);

  nodes_.reserve(snap.nodes.size());
  for (size_t i = 0; i < snap.nodes.size(); ++i) {
    const auto& in = snap.nodes[i];
    Node& n = nodes_.emplace_back(node_tasks_->resource());
    n.ssn = this;
    n.spec = in.spec;
    n.index = static_cast<uint32_t>(i);
    n.allocatable = read(in.allocatable);
    n.idle = arena_.data() + 4 * d * i;
    n.used = n.idle + d;
    n.releasing = n.used + d;
    n.pipelined = n.releasing + d;
    std::copy_n(n.allocatable, d, n.idle);
    if (noting_requests_) exact_.note_allocatable(span(n.allocatable));
    n.tasks.reserve(!tasks_on.empty() ? tasks_on[i] : task_count / snap.nodes.size() + 1);
  }

  // Each record is written once, in place (the arrays keep their memory
  // from session to session, and their elements own none to free); with
  // room for jobs that arrive later (session_reuse.cpp).
  jobs_.reserve(with_room(snap.jobs.size()));
  sub_jobs_.reserve(with_room(snap.jobs.size()));  // one each, unless a job has policies
  tasks_.reserve(with_room(task_count));
  for (auto* bits : {&pending_task_jobs_, &phase_pending_jobs_, &queueless_jobs_})
    bits->assign((snap.jobs.size() + 63) / 64, 0);
  double* job_vectors = arena_.data() + 4 * d * snap.nodes.size();
  uint32_t t = 0;
  for (size_t i = 0; i < snap.jobs.size(); ++i) {
    const auto& in = snap.jobs[i];
    write_job(static_cast<uint32_t>(i), in, t, job_vectors + 2 * d * i, true);
    t += static_cast<uint32_t>(in.tasks.size());
  }
}

size_t Session::short_header_vectors(const Snapshot& snap) const {
  const size_t d = dims();
  const auto is_short = [d](std::span<const double> v) -> size_t { return v.size() < d; };
  size_t n = 0;
  for (const auto& node : snap.nodes) n += is_short(node.allocatable);
  for (const auto& q : snap.queues)
    n += is_short(q.capability) + is_short(q.deserved) + is_short(q.guarantee);
  return n;
}

void Session::write_queues(const Snapshot& snap) {
  queues_.resize(snap.queues.size());
  for (size_t i = 0; i < snap.queues.size(); ++i) {
    const auto& in = snap.queues[i];
    Queue& q = queues_[i];
    q.ssn = this;
    q.spec = in.spec;
    q.index = static_cast<uint32_t>(i);
    q.capability = read(in.capability);
    q.deserved = read(in.deserved);
    q.guarantee = read(in.guarantee);
    q.allocated = take();
  }
}

double* Session::take(std::span<const double> init) {
  double* v = tail_;
  tail_ += dims();
  std::fill_n(v, dims(), 0.0);
  std::copy_n(init.begin(), std::min(init.size(), dims()), v);
  return v;
}

void Session::write_job(uint32_t index, const Snapshot::JobIn& in, uint32_t first_task,
                        double* vectors, bool append) {
  const size_t d = dims();
  const uint32_t first_sub_job = append ? 0 : jobs_[index].first_sub_job;
  Job& j = append ? jobs_.emplace_back() : (jobs_[index] = Job{});
  j.ssn = this;
  j.group = in.group;
  j.index = index;
  j.queue = in.queue;
  j.priority = in.priority;
  j.phase = static_cast<uint32_t>(in.phase);
  mark(phase_pending_jobs_, index, j.phase == SCORIA_PHASE_PENDING);
  mark(queueless_jobs_, index, j.queue < 0);
  mark(pending_task_jobs_, index, false);
  j.allocated = vectors;
  j.total_request = vectors + d;
  if (!append) std::fill_n(vectors, 2 * d, 0.0);
  j.min_resources = read(in.min_resources);
  if (append && noting_requests_) exact_.note_min_resources(span(j.min_resources));
  j.uid = !in.key.empty() ? in.key : std::string_view(made_keys_.emplace_back(in.group->key()));
  j.spec = in.fields;
  j.source = in.source;
  j.source_seq = in.source_seq;
  j.invalid = in.invalid;
  j.fit_error = in.invalid;
  j.tasks = TaskRange(first_task, first_task + static_cast<uint32_t>(in.tasks.size()));
  uint32_t t = first_task;
  for (const auto& tin : in.tasks) {
    Task& task = append ? tasks_.emplace_back() : (tasks_[t] = Task{});
    task.ssn = this;
    task.pod = tin.pod;
    task.views = tin.views;
    task.index = t++;
    task.job = index;
    task.priority = tin.priority;
    task.resreq = read(tin.resreq);
    task.init_resreq = read(tin.init_resreq);
    task.best_effort = model::is_empty(span(task.resreq), SCORIA_DIM_PODS);
  }
  if (append) {
    add_sub_jobs(j, in, first_task);
    if (j.spec.has_network_topology || j.has_sub_group_policy) topology_jobs_.push_back(index);
  } else {
    // A kept job has no policies (keep_records): its only sub-job, if it
    // has tasks, stays where it was.
    j.first_sub_job = first_sub_job;
    if (!j.tasks.empty()) write_default_sub_job(j, sub_jobs_[first_sub_job] = SubJob{});
  }
  t = first_task;
  for (const auto& tin : in.tasks) {
    Task& task = tasks_[t];
    if (append && (tin.features & kListedFeatures) != 0) featured_.push_back(t);
    add({j.total_request, d}, span(task.resreq), 1);
    if (append && noting_requests_) exact_.note_request(span(task.resreq));
    // Status is applied through the same path statements use, so the
    // accounting rules live in one place.
    ++j.status_count[status_bit(SCORIA_TASK_PENDING)];
    if (!j.has_sub_group_policy) task.sub_job = j.first_sub_job;
    SubJob& sj = sub_jobs_[task.sub_job];
    ++sj.status_count[status_bit(SCORIA_TASK_PENDING)];
    if (!j.has_sub_group_policy) sj.priority = std::max(sj.priority, task.priority);
    if (task.best_effort) {
      ++j.pending_best_effort;
      ++sj.pending_best_effort;
    }
    set_task_status(task, tin.status);
    // Finished pods hold nothing on their node (Volcano's cache skips them).
    const bool on_node = tin.node >= 0 && (tin.status & kCompletedMask) == 0;
    if (append) {
      if ((tin.status & kPlacedMask) != 0) placed_.push_back(t);
      if (on_node) node_add_task(nodes_[static_cast<size_t>(tin.node)], task);
    } else if (on_node) {
      task.node = tin.node;  // its node's list and sums are written apart
    }
    ++t;
  }
}

Session::~Session() {
  if (memory_ == nullptr) return;
  swap_kept(*memory_);
  std::swap(memory_->touched, journal_);
}

void Session::swap_kept(SessionMemory& m) {
  m.arena.swap(arena_);
  m.jobs.swap(jobs_);
  m.tasks.swap(tasks_);
  m.sub_jobs.swap(sub_jobs_);
  m.nodes.swap(nodes_);
  m.pending_task_jobs.swap(pending_task_jobs_);
  m.phase_pending_jobs.swap(phase_pending_jobs_);
  m.queueless_jobs.swap(queueless_jobs_);
  m.featured.swap(featured_);
  m.topology_jobs.swap(topology_jobs_);
  m.sub_job_members.swap(sub_job_members_);
  m.made_keys.swap(made_keys_);
}

void Session::add_sub_jobs(Job& job, const Snapshot::JobIn& in, uint32_t first_task) {
  job.first_sub_job = static_cast<uint32_t>(sub_jobs_.size());
  job.has_sub_group_policy = job.spec.has_sub_group_policy;
  const auto add = [&]() -> SubJob& {
    SubJob& s = sub_jobs_.emplace_back();
    s.ssn = this;
    s.job = job.index;
    s.index = job.sub_job_count++;
    return s;
  };
  if (!job.has_sub_group_policy) {
    // One default sub-job of every task: nothing to match, nothing to list.
    if (!job.tasks.empty()) write_default_sub_job(job, sub_jobs_.emplace_back());
    return;
  }
  std::vector<const model::Pod*> pods;
  std::vector<int32_t> priorities;
  pods.reserve(in.tasks.size());
  priorities.reserve(in.tasks.size());
  for (const auto& tin : in.tasks) {
    pods.push_back(tin.pod);
    priorities.push_back(tin.priority);
  }
  SubJobs made = make_sub_jobs(*in.group, job.uid, pods, priorities);
  for (FormedSubJob& m : made.sub_jobs) {
    SubJob& s = add();
    s.uid = made_keys_.emplace_back(std::move(m.uid));
    s.gid = m.policy < 0 ? s.uid : std::string_view(made_keys_.emplace_back(std::move(m.gid)));
    s.policy = m.policy < 0 ? SCORIA_NO_SUB_GROUP_POLICY : static_cast<uint32_t>(m.policy);
    s.min_available = m.min_available;
    s.match_index = m.match_index;
    s.priority = m.priority;
    s.whole_job = false;
    const auto begin = static_cast<uint32_t>(sub_job_members_.size());
    for (uint32_t p : m.members) {
      sub_job_members_.push_back(first_task + p);
      tasks_[first_task + p].sub_job = job.first_sub_job + s.index;
    }
    s.range = TaskRange(begin, static_cast<uint32_t>(sub_job_members_.size()));
  }
}

void Session::write_default_sub_job(Job& job, SubJob& s) {
  s.ssn = this;
  s.job = job.index;
  s.index = job.sub_job_count++;
  s.uid = s.gid = job.uid;
  s.min_available = job.spec.min_member;
  s.range = job.tasks;  // write_job names it in each task as it goes
}

size_t Session::tasks_with_features(uint32_t features, const Task** out, size_t capacity) const {
  features &= feature_mask();
  size_t n = 0;
  const auto take = [&](const Task& task) {
    if ((task.pod->features & features) == 0) return;
    if (n < capacity) out[n] = &task;
    ++n;
  };
  // Tasks with volumes are not listed: asking for them walks every task.
  if ((features & ~kListedFeatures) != 0)
    for (const Task& task : tasks_) take(task);
  else
    for (uint32_t t : featured_) take(tasks_[t]);
  return n;
}

const Node* Session::find_node(std::string_view name) const {
  for (const auto& n : nodes_)
    if (n.spec->name == name) return &n;
  return nullptr;
}

const Queue* Session::find_queue(std::string_view name) const {
  for (const auto& q : queues_)
    if (q.spec->name == name) return &q;
  return nullptr;
}

const model::Namespace* Session::find_namespace(std::string_view name) const {
  const auto it =
      std::lower_bound(namespaces_.begin(), namespaces_.end(), name,
                       [](const model::Namespace* ns, std::string_view n) { return ns->name < n; });
  return it != namespaces_.end() && (*it)->name == name ? *it : nullptr;
}

std::span<const std::string_view> Session::objects_of(std::string_view kind) const {
  for (const Snapshot::KindObjects& k : objects_)
    if (k.kind == kind) return k.json;
  return {};
}

void Session::set_task_status(Task& task, uint32_t status) {
  if (tracking_) touch_job(task.job);
  ++changes_;
  Job& job = jobs_[task.job];
  const bool was = is_allocated_status(task.status);
  const bool now = is_allocated_status(status);
  --job.status_count[status_bit(task.status)];
  ++job.status_count[status_bit(status)];
  SubJob& sub_job = sub_jobs_[task.sub_job];
  --sub_job.status_count[status_bit(task.status)];
  ++sub_job.status_count[status_bit(status)];
  if (task.best_effort) {
    const int32_t delta = (status == SCORIA_TASK_PENDING) - (task.status == SCORIA_TASK_PENDING);
    job.pending_best_effort += delta;
    sub_job.pending_best_effort += delta;
  }
  if (task.status == SCORIA_TASK_PENDING || status == SCORIA_TASK_PENDING)
    mark(pending_task_jobs_, job.index, job.status_count[status_bit(SCORIA_TASK_PENDING)] > 0);
  task.status = status;
  if (task.node >= 0) node_changed(nodes_[static_cast<size_t>(task.node)]);
  if (was == now) return;
  const double sign = now ? 1.0 : -1.0;
  add({job.allocated, dims()}, span(task.resreq), sign);
  if (job.queue >= 0)
    add({queues_[static_cast<size_t>(job.queue)].allocated, dims()}, span(task.resreq), sign);
}

// Volcano's NodeInfo.AddTask: releasing tasks still use their resources and
// will give them back; pipelined tasks only reserve what is being released.
void Session::node_sums(Node& node, uint32_t status, const double* resreq, double sign) {
  const size_t d = dims();
  std::span<const double> r = span(resreq);
  if (status == SCORIA_TASK_PIPELINED) {
    add({node.pipelined, d}, r, sign);
    return;
  }
  if (status == SCORIA_TASK_RELEASING) add({node.releasing, d}, r, sign);
  add({node.idle, d}, r, -sign);
  add({node.used, d}, r, sign);
}

void Session::node_add_task(Node& node, Task& task) {
  if (tracking_) {
    touch_job(task.job);
    touch_node(node.index);
  }
  task.node = static_cast<int32_t>(node.index);
  node.tasks.push_back(task.index);
  node_changed(node);
  node_sums(node, task.status, task.resreq, 1);
}

void Session::node_remove_task(Node& node, Task& task) {
  if (tracking_) {
    touch_job(task.job);
    touch_node(node.index);
  }
  auto it = std::find(node.tasks.begin(), node.tasks.end(), task.index);
  if (it != node.tasks.end()) node.tasks.erase(it);
  node_changed(node);
  node_sums(node, task.status, task.resreq, -1);
}

void Session::fire_allocate(const Task& task) {
  for (auto& tier : dispatch_.tiers())
    for (auto& p : tier)
      if (p.hooks.on_allocate) {
        const plugin::InPlugin in(p.mark, "on_allocate");
        p.hooks.on_allocate(p.hooks.user_data, &task);
      }
}

void Session::fire_deallocate(const Task& task) {
  for (auto& tier : dispatch_.tiers())
    for (auto& p : tier)
      if (p.hooks.on_deallocate) {
        const plugin::InPlugin in(p.mark, "on_deallocate");
        p.hooks.on_deallocate(p.hooks.user_data, &task);
      }
}

bool Session::action_enabled(std::string_view action) const {
  return std::find(config_.actions.begin(), config_.actions.end(), action) != config_.actions.end();
}

Statement* Session::open_statement() {
  statements_.push_back(std::make_unique<Statement>(*this));
  return statements_.back().get();
}

void Session::close_statement(Statement* stmt) {
  std::erase_if(statements_, [stmt](const auto& s) { return s.get() == stmt; });
}

void Session::record_bind(Task& task) {
  touch(jobs_[task.job]);
  task.committed = true;
  ++jobs_[task.job].committed;
  Annotations annotations;
  if (task.bind_annotations != 0)
    annotations = std::move(bind_annotations_[task.bind_annotations - 1]);
  std::sort(annotations.begin(), annotations.end());
  binds_.push_back({task.views->uid, nodes_[static_cast<size_t>(task.node)].spec->name,
                    std::move(annotations), task.index, volumes_.take(task), devices_.take(task)});
}

scoria_code Session::set_bind_annotation(Task& task, std::string_view key, std::string_view value) {
  if (key.empty() || task.node < 0 ||
      (task.status != SCORIA_TASK_ALLOCATED && task.status != SCORIA_TASK_PIPELINED))
    return SCORIA_INVALID_ARGUMENT;
  touch(jobs_[task.job]);
  if (task.bind_annotations == 0) {
    bind_annotations_.emplace_back();
    task.bind_annotations = static_cast<uint32_t>(bind_annotations_.size());
  }
  Annotations& annotations = bind_annotations_[task.bind_annotations - 1];
  for (auto& [k, v] : annotations)
    if (k == key) {
      v.assign(value);
      return SCORIA_OK;
    }
  annotations.emplace_back(key, value);
  return SCORIA_OK;
}

void Session::record_eviction(Task& task, std::string_view /*reason*/) {
  evictions_.push_back(task.views->uid);
}

bool Session::lift_queue_gate(const Task& task) {
  // As Volcano's SchGateManager.Enqueue: only a pod whose one gate is the
  // queue's (the host reports it only with SchedulingGatesQueueAdmission).
  if (!config_.queue_admission_gates || (task.pod->queue_gate & model::kOnlyQueueGate) == 0)
    return false;
  ungated_.push_back(task.views->uid);  // a repeat is dropped at close
  return true;
}

std::string& Session::keep_message(std::string message) {
  messages_.push_back(std::make_unique<std::string>(std::move(message)));
  return *messages_.back();
}

bool Session::overused(const Queue& queue) {
  const bool over = dispatch_.overused(queue);
  queues_[queue.index].overused = over;
  return over;
}

void Session::preemptable(const Task& preemptor, std::span<const Task* const> candidates,
                          uint8_t* selected) {
  dispatch_.preemptable(preemptor, candidates, selected);
  // Volcano's preempt action sets pod_preemption_victims after each ask and
  // counts an attempt where the victims let it try; here, where there are any.
  if (action_ == "preempt") {
    const auto victims = static_cast<size_t>(
        std::count_if(selected, selected + candidates.size(), [](uint8_t v) { return v != 0; }));
    preemption_victims_ = victims;
    if (victims > 0) ++preemption_attempts_;
  }
}

bool Session::sub_job_ready(const SubJob& sub_job) {
  const Job& job = jobs_[sub_job.job];
  return job.has_sub_group_policy ? dispatch_.sub_job_ready(sub_job) : dispatch_.job_ready(job);
}

bool Session::sub_job_pipelined(const SubJob& sub_job) {
  const Job& job = jobs_[sub_job.job];
  return job.has_sub_group_policy ? dispatch_.sub_job_pipelined(sub_job)
                                  : dispatch_.job_pipelined(job);
}

void Session::count_eviction_transaction() {
  for (auto& [action, count] : eviction_transactions_)
    if (action == action_) {
      ++count;
      return;
    }
  eviction_transactions_.emplace_back(action_, 1);
}

}  // namespace scoria::session
