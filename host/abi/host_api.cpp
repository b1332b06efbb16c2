// The host's service table: every scoria_host_api function, each a thin
// adapter from the C ABI onto the session. No logic lives here
// that a C++ caller inside the host would need too.
#include "abi/host_api.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "abi/guarded.h"
#include "abi/host_api_adapters.h"
#include "abi/host_api_sub_jobs.h"
#include "log/log.h"
#include "plugin/argument_text.h"
#include "plugin/plugin_args.h"
#include "plugin/plugin_ctx.h"
#include "plugin/reason_table.h"
#include "session/session.h"
#include "session/statement.h"

using scoria::session::Job;
using scoria::session::Node;
using scoria::session::Queue;
using scoria::session::Session;
using scoria::session::Task;

namespace {

using namespace scoria::abi::adapters;
namespace sub_job_api = scoria::abi::sub_job_api;
scoria::session::Statement* stmt_of(scoria_statement* s) {
  return static_cast<scoria::session::Statement*>(s);
}
template <class T>
bool fits(const T* out, size_t end_offset) {
  return out != nullptr && out->struct_size >= end_offset;
}
#define FILL SCORIA_FILL

// --- logging ---------------------------------------------------------------
void api_log(const scoria_plugin_ctx* ctx, int level, scoria_str msg) {
  scoria::log::write(level, ctx ? std::string_view(ctx->name) : "plugin", V(msg));
}
int api_log_enabled(const scoria_plugin_ctx*, int level) { return scoria::log::enabled(level); }
void api_report_error(const scoria_plugin_ctx* ctx, scoria_str msg) {
  scoria::plugin::report_error(ctx, V(msg));
}

// --- arguments ---------------------------------------------------------------
const std::string* arg(const scoria_args* a, scoria_str key) {
  if (a == nullptr) return nullptr;
  auto it = a->values.find(V(key));
  return it == a->values.end() ? nullptr : &it->second;
}
scoria_code api_args_get_int(const scoria_args* a, scoria_str key, int64_t* out) {
  const std::string* v = arg(a, key);
  if (!v) return SCORIA_NOT_FOUND;
  const auto x = scoria::plugin::int_of(*v);
  if (!x) return SCORIA_INVALID_ARGUMENT;
  *out = *x;
  return SCORIA_OK;
}
scoria_code api_args_get_float(const scoria_args* a, scoria_str key, double* out) {
  const std::string* v = arg(a, key);
  if (!v) return SCORIA_NOT_FOUND;
  // The config reader refuses non-finite numbers already; no plugin gets one either way.
  const auto x = scoria::plugin::float_of(*v);
  if (!x) return SCORIA_INVALID_ARGUMENT;
  *out = *x;
  return SCORIA_OK;
}
scoria_code api_args_get_bool(const scoria_args* a, scoria_str key, int* out) {
  const std::string* v = arg(a, key);
  if (!v) return SCORIA_NOT_FOUND;
  const auto x = scoria::plugin::bool_of(*v);
  if (!x) return SCORIA_INVALID_ARGUMENT;
  *out = *x ? 1 : 0;
  return SCORIA_OK;
}
scoria_code api_args_get_string(const scoria_args* a, scoria_str key, scoria_str* out) {
  const std::string* v = arg(a, key);
  if (!v) return SCORIA_NOT_FOUND;
  *out = S(*v);
  return SCORIA_OK;
}
size_t api_args_count(const scoria_args* a) { return a ? a->values.size() : 0; }
scoria_str api_args_key_at(const scoria_args* a, size_t i) {
  if (!a || i >= a->values.size()) return S("");
  auto it = a->values.begin();
  std::advance(it, static_cast<long>(i));
  return S(it->first);
}

// --- reasons -------------------------------------------------------------------
uint32_t api_reason_intern(scoria_str text) { return scoria::plugin::intern_reason(V(text)); }
scoria_str api_reason_text(uint32_t id) { return S(scoria::plugin::reason_text(id)); }

// --- resources -------------------------------------------------------------------
size_t api_dim_count(const scoria_session* s) { return mut(s)->dims(); }
scoria_str api_dim_name(const scoria_session* s, size_t d) {
  const auto& names = mut(s)->dim_names();
  return d < names.size() ? S(names[d]) : S("");
}
scoria_code api_dim_find(const scoria_session* s, scoria_str name, size_t* dim) {
  const auto& names = mut(s)->dim_names();
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == V(name)) {
      *dim = i;
      return SCORIA_OK;
    }
  return SCORIA_NOT_FOUND;
}

// --- iteration ---------------------------------------------------------------------
size_t api_queue_count(const scoria_session* s) { return mut(s)->queues().size(); }
const scoria_queue* api_queue_at(const scoria_session* s, size_t i) {
  auto& v = mut(s)->queues();
  return i < v.size() ? &v[i] : nullptr;
}
size_t api_job_count(const scoria_session* s) { return mut(s)->jobs().size(); }
const scoria_job* api_job_at(const scoria_session* s, size_t i) {
  auto& v = mut(s)->jobs();
  return i < v.size() ? &v[i] : nullptr;
}
size_t api_node_count(const scoria_session* s) { return mut(s)->nodes().size(); }
const scoria_node* api_node_at(const scoria_session* s, size_t i) {
  auto& v = mut(s)->nodes();
  return i < v.size() ? &v[i] : nullptr;
}
const scoria_node* api_node_find(const scoria_session* s, scoria_str name) {
  return mut(s)->find_node(V(name));
}
const scoria_queue* api_queue_find(const scoria_session* s, scoria_str name) {
  return mut(s)->find_queue(V(name));
}
size_t api_job_task_count(const scoria_job* j) { return j ? j->tasks.size() : 0; }
const scoria_task* api_job_task_at(const scoria_job* j, size_t i) {
  if (!j || i >= j->tasks.size()) return nullptr;
  return &j->ssn->tasks()[j->tasks[i]];
}
size_t api_node_task_count(const scoria_node* n) { return n ? n->tasks.size() : 0; }
const scoria_task* api_node_task_at(const scoria_node* n, size_t i) {
  if (!n || i >= n->tasks.size()) return nullptr;
  return &n->ssn->tasks()[n->tasks[i]];
}

// --- objects ---------------------------------------------------------------------------
scoria_code api_task_info(const scoria_task* t, scoria_task_info* o) {
  if (!t || !fits(o, sizeof(uint32_t))) return SCORIA_INVALID_ARGUMENT;
  const auto& pod = *t->pod;
  Session& s = *t->ssn;
  FILL(o, status, t->status);
  FILL(o, namespace_, S(pod.namespace_));
  FILL(o, name, S(pod.name));
  FILL(o, uid, S(t->views->uid));
  FILL(o, node_name,
       S(t->node >= 0 ? std::string_view(s.nodes()[static_cast<size_t>(t->node)].spec->name)
                      : std::string_view()));
  FILL(o, role, S(pod.role));
  FILL(o, priority_class, S(pod.priority_class_name));
  FILL(o, priority, t->priority);
  FILL(o, preemptable, pod.preemptable ? 1 : 0);
  FILL(o, best_effort, t->best_effort ? 1 : 0);
  FILL(o, preempt_never, pod.preempt_never ? 1 : 0);
  FILL(o, resreq, t->resreq);
  FILL(o, init_resreq, t->init_resreq);
  FILL(o, job, &s.jobs()[t->job]);
  FILL(o, creation_ms, pod.creation_ms);
  FILL(o, index, t->index);
  FILL(o, features, pod.features & s.feature_mask());
  FILL(o, scheduling_gated, pod.scheduling_gated ? 1 : 0);
  FILL(o, nominated_node, S(pod.nominated_node));
  FILL(o, scheduled_ms, pod.scheduled_ms);
  FILL(o, queue_gate, s.config().queue_admission_gates ? uint32_t{pod.queue_gate} : 0u);
  FILL(o, reserved1, 0u);
  return SCORIA_OK;
}
scoria_code api_job_info(const scoria_job* j, scoria_job_info* o) {
  if (!j || !fits(o, sizeof(uint32_t))) return SCORIA_INVALID_ARGUMENT;
  FILL(o, phase, j->phase);
  FILL(o, namespace_, S(j->spec.namespace_));
  FILL(o, name, S(j->spec.name));
  FILL(o, uid, S(j->uid));
  FILL(o, queue_name, S(j->spec.queue));
  FILL(o, queue, j->queue >= 0 ? &j->ssn->queues()[static_cast<size_t>(j->queue)] : nullptr);
  FILL(o, min_available, j->spec.min_member);
  FILL(o, priority, j->priority);
  FILL(o, preemptable, j->spec.preemptable ? 1 : 0);
  FILL(o, task_count, static_cast<int32_t>(j->tasks.size()));
  FILL(o, min_resources, j->min_resources);
  FILL(o, has_min_resources, j->spec.has_min_resources ? 1 : 0);
  FILL(o, index, j->index);
  FILL(o, creation_ms, j->spec.creation_ms);
  if (o->struct_size >= offsetof(scoria_job_info, status_count) + sizeof o->status_count)
    std::memcpy(o->status_count, j->status_count, sizeof o->status_count);
  FILL(o, allocated, j->allocated);
  FILL(o, total_request, j->total_request);
  FILL(o, pending_best_effort, j->pending_best_effort);
  FILL(o, disrupt_whole, j->group != nullptr && j->group->disrupt_whole ? 1 : 0);
  FILL(o, reserved1, 0);
  return SCORIA_OK;
}
scoria_code api_queue_info(const scoria_queue* q, scoria_queue_info* o) {
  if (!q || !fits(o, sizeof(uint32_t))) return SCORIA_INVALID_ARGUMENT;
  const auto& spec = *q->spec;
  FILL(o, index, q->index);
  FILL(o, name, S(spec.name));
  FILL(o, parent, S(spec.parent));
  FILL(o, weight, spec.weight);
  FILL(o, priority, spec.priority);
  FILL(o, reclaimable, spec.reclaimable ? 1 : 0);
  FILL(o, open, spec.open ? 1 : 0);
  FILL(o, capability, q->capability);
  FILL(o, deserved, q->deserved);
  FILL(o, guarantee, q->guarantee);
  FILL(o, allocated, q->allocated);
  FILL(o, creation_ms, spec.creation_ms);
  return SCORIA_OK;
}
scoria_code api_node_info(const scoria_node* n, scoria_node_info* o) {
  if (!n || !fits(o, sizeof(uint32_t))) return SCORIA_INVALID_ARGUMENT;
  FILL(o, index, n->index);
  FILL(o, name, S(n->spec->name));
  FILL(o, ready, n->spec->ready ? 1 : 0);
  FILL(o, unschedulable, n->spec->unschedulable ? 1 : 0);
  FILL(o, allocatable, n->allocatable);
  FILL(o, idle, n->idle);
  FILL(o, used, n->used);
  FILL(o, releasing, n->releasing);
  FILL(o, pipelined, n->pipelined);
  FILL(o, task_count, static_cast<uint32_t>(n->tasks.size()));
  FILL(o, outside_soft_shard, n->ssn->outside_soft_shard(*n) ? 1 : 0);
  FILL(o, reserved1, 0);
  return SCORIA_OK;
}
const scoria_session* api_job_session(const scoria_job* j) {
  return j ? reinterpret_cast<const scoria_session*>(j->ssn) : nullptr;
}

scoria_code lookup(const std::map<std::string, std::string>& m, scoria_str key, scoria_str* v) {
  auto it = m.find(std::string(V(key)));
  if (it == m.end()) return SCORIA_NOT_FOUND;
  if (v) *v = S(it->second);
  return SCORIA_OK;
}
template <class Map>
void map_at(const Map& m, size_t i, scoria_str* k, scoria_str* v) {
  if (i >= m.size()) return;
  auto it = m.begin();
  std::advance(it, static_cast<long>(i));
  if (k) *k = S(it->first);
  if (v) *v = S(it->second);
}
scoria_code api_node_label(const scoria_node* n, scoria_str key, scoria_str* v) {
  return n ? lookup(n->spec->labels, key, v) : SCORIA_INVALID_ARGUMENT;
}
size_t api_node_label_count(const scoria_node* n) { return n ? n->spec->labels.size() : 0; }
void api_node_label_at(const scoria_node* n, size_t i, scoria_str* k, scoria_str* v) {
  if (n) map_at(n->spec->labels, i, k, v);
}
size_t api_node_taint_count(const scoria_node* n) { return n ? n->spec->taints.size() : 0; }
void api_node_taint_at(const scoria_node* n, size_t i, scoria_taint* out) {
  if (!n || !out || i >= n->spec->taints.size()) return;
  const auto& t = n->spec->taints[i];
  FILL(out, effect, static_cast<uint32_t>(t.effect));
  FILL(out, key, S(t.key));
  FILL(out, value, S(t.value));
}
scoria_code api_task_label(const scoria_task* t, scoria_str key, scoria_str* v) {
  return t ? lookup(t->pod->labels, key, v) : SCORIA_INVALID_ARGUMENT;
}
scoria_code api_task_annotation(const scoria_task* t, scoria_str key, scoria_str* v) {
  return t ? lookup(t->pod->annotations, key, v) : SCORIA_INVALID_ARGUMENT;
}
scoria_code api_job_annotation(const scoria_job* j, scoria_str key, scoria_str* v) {
  return j ? lookup(j->group->annotations, key, v) : SCORIA_INVALID_ARGUMENT;
}
scoria_code api_queue_annotation(const scoria_queue* q, scoria_str key, scoria_str* v) {
  return q ? lookup(q->spec->annotations, key, v) : SCORIA_INVALID_ARGUMENT;
}
scoria_code api_namespace_label_count(const scoria_session* s, scoria_str ns, size_t* count) {
  const scoria::model::Namespace* n = s ? mut(s)->find_namespace(V(ns)) : nullptr;
  if (count) *count = n ? n->labels.size() : 0;
  return n ? SCORIA_OK : SCORIA_NOT_FOUND;
}
scoria_code api_namespace_label_at(const scoria_session* s, scoria_str ns, size_t i, scoria_str* k,
                                   scoria_str* v) {
  const scoria::model::Namespace* n = s ? mut(s)->find_namespace(V(ns)) : nullptr;
  if (!n || i >= n->labels.size()) return SCORIA_NOT_FOUND;
  map_at(n->labels, i, k, v);
  return SCORIA_OK;
}
scoria_code api_namespace_label(const scoria_session* s, scoria_str ns, scoria_str key,
                                scoria_str* v) {
  const scoria::model::Namespace* n = s ? mut(s)->find_namespace(V(ns)) : nullptr;
  return n ? lookup(n->labels, key, v) : SCORIA_NOT_FOUND;
}
int64_t api_session_now_ms(const scoria_session* s) { return s ? mut(s)->now_ms() : 0; }
scoria_code api_node_annotation(const scoria_node* n, scoria_str key, scoria_str* v) {
  return n ? lookup(n->spec->annotations, key, v) : SCORIA_INVALID_ARGUMENT;
}
size_t api_session_object_count(const scoria_session* s, scoria_str kind) {
  return s ? mut(s)->objects_of(V(kind)).size() : 0;
}
scoria_str api_session_object_json(const scoria_session* s, scoria_str kind, size_t i) {
  if (s == nullptr) return S({});
  const auto objects = mut(s)->objects_of(V(kind));
  return i < objects.size() ? S(objects[i]) : S({});
}
size_t api_job_min_task_member_count(const scoria_job* j) {
  return j && j->group ? j->group->min_task_member.size() : 0;
}
void api_job_min_task_member_at(const scoria_job* j, size_t i, scoria_str* role, int32_t* min) {
  // std::map keeps the roles in byte order (char_traits compares as unsigned).
  const auto* m = j && j->group ? &j->group->min_task_member : nullptr;
  if (m == nullptr || i >= m->size()) {
    if (role) *role = S({});
    if (min) *min = 0;
    return;
  }
  auto it = m->begin();
  std::advance(it, static_cast<long>(i));
  if (role) *role = S(it->first);
  if (min) *min = it->second;
}
size_t api_task_selector_count(const scoria_task* t) {
  return t ? t->pod->node_selector.size() : 0;
}
void api_task_selector_at(const scoria_task* t, size_t i, scoria_str* k, scoria_str* v) {
  if (t) map_at(t->pod->node_selector, i, k, v);
}
size_t api_task_toleration_count(const scoria_task* t) {
  return t ? t->pod->tolerations.size() : 0;
}
void api_task_toleration_at(const scoria_task* t, size_t i, scoria_toleration* out) {
  if (!t || !out || i >= t->pod->tolerations.size()) return;
  const auto& x = t->pod->tolerations[i];
  FILL(out, op, static_cast<uint32_t>(x.op));
  FILL(out, effect, x.effect);
  FILL(out, key, S(x.key));
  FILL(out, value, S(x.value));
}
const std::vector<scoria::model::NodeSelectorTerm>* terms(const scoria_task* t, uint32_t kind) {
  if (!t) return nullptr;
  if (kind == SCORIA_AFFINITY_REQUIRED) return &t->pod->required_affinity;
  if (kind == SCORIA_AFFINITY_PREFERRED) return &t->pod->preferred_affinity;
  return nullptr;
}
size_t api_term_count(const scoria_task* t, uint32_t kind) {
  auto* v = terms(t, kind);
  return v ? v->size() : 0;
}
int32_t api_term_weight(const scoria_task* t, uint32_t kind, size_t term) {
  auto* v = terms(t, kind);
  return v && term < v->size() ? (*v)[term].weight : 0;
}
size_t api_requirement_count(const scoria_task* t, uint32_t kind, size_t term) {
  auto* v = terms(t, kind);
  return v && term < v->size() ? (*v)[term].requirements.size() : 0;
}
void api_requirement_at(const scoria_task* t, uint32_t kind, size_t term, size_t i,
                        scoria_selector_requirement* out) {
  auto* v = terms(t, kind);
  if (!v || !out || term >= v->size() || i >= (*v)[term].requirements.size()) return;
  const auto& r = (*v)[term].requirements[i];
  const auto& values =
      (kind == SCORIA_AFFINITY_REQUIRED ? t->views->required : t->views->preferred)[term][i];
  FILL(out, op, static_cast<uint32_t>(r.op));
  FILL(out, is_field, r.is_field ? 1u : 0u);
  FILL(out, key, S(r.key));
  FILL(out, values, values.data());
  FILL(out, value_count, values.size());
}
scoria_str api_task_object_json(const scoria_task* t) { return t ? S(t->pod->json) : S(""); }
scoria_str api_queue_object_json(const scoria_queue* q) { return q ? S(q->spec->json) : S(""); }

// --- session decisions ------------------------------------------------------------------
int api_job_less(const scoria_session* s, const scoria_job* l, const scoria_job* r) {
  return mut(s)->dispatch().job_less(*l, *r);
}
int api_queue_less(const scoria_session* s, const scoria_queue* l, const scoria_queue* r) {
  return mut(s)->dispatch().queue_less(*l, *r);
}
int api_task_less(const scoria_session* s, const scoria_task* l, const scoria_task* r) {
  return mut(s)->dispatch().task_less(*l, *r);
}
int api_victim_queue_less(const scoria_session* s, const scoria_queue* l, const scoria_queue* r,
                          const scoria_task* p) {
  return mut(s)->dispatch().victim_queue_less(*l, *r, p);
}
size_t api_predicate_nodes(scoria_session* s, const scoria_task* t, const scoria_node* const* cands,
                           size_t count, int check, const scoria_node** fit) {
  Session& ssn = *mut(s);
  const auto searched = cands == nullptr ? ssn.all_nodes() : std::span(cands, count);
  return ssn.shard_first(ssn.predicate_nodes(*mut(t), searched, check != 0, fit), fit);
}
scoria_code api_predicate(scoria_session* s, const scoria_task* t, const scoria_node* n,
                          uint32_t* reason) {
  return mut(s)->predicate(*t, *n, reason);
}
scoria_code api_predicate_without(scoria_session* s, const scoria_task* t, const scoria_node* n,
                                  const scoria_task* const* gone, size_t count, uint32_t* reason) {
  Session* ssn = s ? mut(s) : nullptr;
  if (ssn == nullptr || t == nullptr || n == nullptr || t->ssn != ssn || n->ssn != ssn ||
      (gone == nullptr && count != 0))
    return SCORIA_INVALID_ARGUMENT;
  std::vector<Task*> tasks;
  tasks.reserve(count);
  for (size_t i = 0; i < count; ++i) tasks.push_back(gone[i] ? mut(gone[i]) : nullptr);
  return ssn->predicate_without(*t, *n, tasks, reason);
}
// --- HyperNodes (1.6) ---------------------------------------------------------
size_t api_hypernode_count(const scoria_session* s) { return s ? mut(s)->topology().size() : 0; }
scoria_code api_hypernode_info(const scoria_session* s, uint32_t i, scoria_hypernode_info* out) {
  if (s == nullptr || out == nullptr || i >= mut(s)->topology().size())
    return SCORIA_INVALID_ARGUMENT;
  const scoria::session::HyperNodeView& h = mut(s)->topology().all()[i];
  FILL(out, index, i);
  FILL(out, name, S(h.name));
  FILL(out, tier, h.tier);
  FILL(out, parent, h.parent);
  FILL(out, children, h.children.data());
  FILL(out, child_count, h.children.size());
  FILL(out, nodes, h.nodes.data());
  FILL(out, node_count, h.nodes.size());
  return SCORIA_OK;
}
uint32_t api_hypernode_find(const scoria_session* s, scoria_str name) {
  return s ? mut(s)->topology().find(V(name)) : SCORIA_NO_HYPERNODE;
}
scoria_code api_job_network_topology(const scoria_job* j, scoria_network_topology* out) {
  if (j == nullptr || out == nullptr) return SCORIA_INVALID_ARGUMENT;
  scoria::abi::fill_network_topology(j->topology, out);
  return SCORIA_OK;
}
scoria_code api_job_set_allocated_hypernode(scoria_session* s, const scoria_job* j, uint32_t h) {
  if (s == nullptr || j == nullptr || j->ssn != mut(s) ||
      (h != SCORIA_NO_HYPERNODE && h >= mut(s)->topology().size()))
    return SCORIA_INVALID_ARGUMENT;
  mut(s)->touch(*j);
  const_cast<Job*>(j)->topology.allocated_hypernode = h;
  return SCORIA_OK;
}
scoria_code api_hypernode_scores(scoria_session* s, const scoria_job* j, const uint32_t* hypernodes,
                                 size_t count, double* scores) {
  if (s == nullptr || j == nullptr || (count != 0 && (hypernodes == nullptr || scores == nullptr)))
    return SCORIA_INVALID_ARGUMENT;
  mut(s)->hypernode_scores(*j, {hypernodes, count}, scores);
  return SCORIA_OK;
}
size_t api_hypernode_gradient(scoria_session* s, const scoria_job* j, uint32_t root,
                              uint32_t purpose, uint32_t* hypernodes, uint32_t* gradient,
                              size_t capacity) {
  if (s == nullptr || j == nullptr || hypernodes == nullptr || gradient == nullptr ||
      root >= mut(s)->topology().size())
    return 0;
  return mut(s)->hypernode_gradient(*j, root, purpose, hypernodes, gradient, capacity);
}

size_t api_tasks_with_features(const scoria_session* s, uint32_t features, const scoria_task** out,
                               size_t capacity) {
  if (s == nullptr) return 0;
  return mut(s)->tasks_with_features(features, out, out == nullptr ? 0 : capacity);
}

scoria_code api_node_scores(scoria_session* s, const scoria_task* t,
                            const scoria_node* const* nodes, size_t count, double* scores) {
  mut(s)->node_scores(*t, {nodes, count}, scores);
  return SCORIA_OK;
}
scoria_code api_select_node(scoria_session* s, const scoria_task* t,
                            const scoria_node* const* cands, size_t count,
                            scoria_node_choice* out) {
  if (s == nullptr || t == nullptr || out == nullptr || t->ssn != mut(s))
    return SCORIA_INVALID_ARGUMENT;
  Session& ssn = *mut(s);
  const Session::NodeChoice c =
      ssn.select_node(*mut(t), cands == nullptr ? ssn.all_nodes() : std::span(cands, count));
  SCORIA_FILL(out, fit_count, static_cast<uint32_t>(c.fit_count));
  SCORIA_FILL(out, node, c.node);
  SCORIA_FILL(out, idle, c.idle ? 1 : 0);
  return SCORIA_OK;
}
scoria_code api_queue_job_sums(scoria_session* s, scoria_queue_job_sums* out, size_t count) {
  if (s == nullptr || (out == nullptr && count > 0) || count > mut(s)->queues().size())
    return SCORIA_INVALID_ARGUMENT;
  for (size_t q = 0; q < count; ++q)
    if (!fits(&out[q], offsetof(scoria_queue_job_sums, running_unallocated) +
                           sizeof out[q].running_unallocated))
      return SCORIA_INVALID_ARGUMENT;
  const auto sums = mut(s)->queue_job_sums();
  for (size_t q = 0; q < count; ++q) {
    const Session::QueueJobSums& in = sums[q];
    scoria_queue_job_sums* o = &out[q];
    FILL(o, jobs, in.jobs);
    FILL(o, allocated, in.allocated);
    FILL(o, request, in.request);
    FILL(o, elastic, in.elastic);
    FILL(o, inqueue_minimum, in.inqueue_minimum);
    FILL(o, inqueue_unallocated, in.inqueue_unallocated);
    FILL(o, running_unallocated, in.running_unallocated);
  }
  return SCORIA_OK;
}
scoria_code api_volume_check(const scoria_session* s, const scoria_task* t, const scoria_node* n,
                             uint32_t checks, uint32_t* reason) {
  if (s == nullptr || t == nullptr || n == nullptr || reason == nullptr)
    return SCORIA_INVALID_ARGUMENT;
  // Called from predicate workers: nothing may unwind into the plugin.
  try {
    return mut(s)->volumes().check(*t, *n, checks, reason);
  } catch (...) {
    return SCORIA_ERROR;
  }
}

const scoria_device_demand* api_task_device_demands(const scoria_session* s, const scoria_task* t,
                                                    size_t* count) {
  static constexpr scoria_device_demand kNone[1] = {};
  if (count != nullptr) *count = 0;
  if (s == nullptr || t == nullptr || count == nullptr) return kNone;
  try {
    const std::span<const scoria_device_demand> d = mut(s)->devices().demands(*t);
    *count = d.size();
    return d.empty() ? kNone : d.data();
  } catch (...) {
    return kNone;
  }
}

const scoria_job* const* api_jobs_where(scoria_session* s, uint32_t which, size_t* count) {
  static constexpr const scoria_job* kNoJobs[1] = {nullptr};
  if (count != nullptr) *count = 0;  // also what a throw below leaves
  if (s == nullptr) return kNoJobs;
  const auto jobs = mut(s)->jobs_where(which);
  if (count != nullptr) *count = jobs.size();
  return jobs.empty() ? kNoJobs : jobs.data();
}
int64_t api_best_node(scoria_session* s, const scoria_task* t, const scoria_node* const* nodes,
                      const double* scores, size_t count) {
  return mut(s)->best_node(*t, {nodes, count}, scores);
}
int api_job_valid(scoria_session* s, const scoria_job* j, scoria_str* message) {
  if (message) *message = S("");  // also what a throw below leaves
  std::string msg;
  bool ok = mut(s)->dispatch().job_valid(*j, &msg);
  if (!ok && message) *message = S(mut(s)->keep_message(std::move(msg)));
  return ok;
}
int api_job_ready(scoria_session* s, const scoria_job* j) {
  return mut(s)->dispatch().job_ready(*j);
}
int api_job_pipelined(scoria_session* s, const scoria_job* j) {
  return mut(s)->dispatch().job_pipelined(*j);
}
int api_job_enqueueable(scoria_session* s, const scoria_job* j) {
  return mut(s)->dispatch().job_enqueueable(*j);
}
void api_job_enqueued(scoria_session* s, const scoria_job* j) {
  mut(s)->dispatch().job_enqueued(*j);
}
int api_job_starving(scoria_session* s, const scoria_job* j) {
  return mut(s)->dispatch().job_starving(*j);
}
int api_overused(scoria_session* s, const scoria_queue* q) { return mut(s)->overused(*q); }
int api_allocatable(scoria_session* s, const scoria_queue* q, const scoria_task* t) {
  return mut(s)->dispatch().allocatable(*q, *t);
}
void api_preemptable(scoria_session* s, const scoria_task* p, const scoria_task* const* c, size_t n,
                     uint8_t* sel) {
  mut(s)->preemptable(*p, {c, n}, sel);
}
void api_reclaimable(scoria_session* s, const scoria_task* p, const scoria_task* const* c, size_t n,
                     uint8_t* sel) {
  mut(s)->dispatch().reclaimable(*p, {c, n}, sel);
}
void api_victim_tasks(scoria_session* s, const scoria_task* const* c, size_t n, uint8_t* sel) {
  mut(s)->dispatch().victim_tasks({c, n}, sel);
}
scoria_code api_job_set_phase(scoria_session*, const scoria_job* j, uint32_t phase) {
  if (!j || phase > SCORIA_PHASE_COMPLETED) return SCORIA_INVALID_ARGUMENT;
  j->ssn->set_job_phase(*const_cast<Job*>(j), phase);
  return SCORIA_OK;
}
void api_job_set_fit_error(scoria_session*, const scoria_job* j, scoria_str message) {
  // Kept by the job's own session until it closes.
  if (j == nullptr) return;
  j->ssn->touch(*j);
  const_cast<Job*>(j)->fit_error = j->ssn->keep_message(std::string(V(message)));
}
scoria_code api_session_queue_set_deserved(scoria_session* s, const scoria_queue* q,
                                           const double* deserved) {
  if (!s || !q || !deserved || q->ssn != mut(s)) return SCORIA_INVALID_ARGUMENT;
  const size_t dims = mut(s)->dims();
  const_cast<Queue*>(q)->status_deserved.assign(deserved, deserved + dims);
  return SCORIA_OK;
}
scoria_code api_queue_set_real_capability(scoria_session* s, const scoria_queue* q,
                                          const double* real_capability) {
  if (!s || !q || !real_capability || q->ssn != mut(s)) return SCORIA_INVALID_ARGUMENT;
  const std::span<const double> values(real_capability, mut(s)->dims());
  // +infinity is "no limit"; a negative or NaN amount is not a capability.
  if (std::any_of(values.begin(), values.end(), [](double v) { return !(v >= 0); }))
    return SCORIA_INVALID_ARGUMENT;
  const_cast<Queue*>(q)->real_capability.assign(values.begin(), values.end());
  return SCORIA_OK;
}
scoria_code api_lift_queue_gate(scoria_session* s, const scoria_task* t) {
  if (!s || !t || t->ssn != mut(s)) return SCORIA_INVALID_ARGUMENT;
  return mut(s)->lift_queue_gate(*t) ? SCORIA_OK : SCORIA_SKIP;
}
scoria_code api_node_totals(scoria_session* s, double* allocatable, double* used) {
  if (!s) return SCORIA_INVALID_ARGUMENT;
  mut(s)->node_totals(allocatable, used);
  return SCORIA_OK;
}
int api_preemptive(scoria_session* s, const scoria_queue* q, const scoria_task* t) {
  return s && q && t ? mut(s)->dispatch().preemptive(*q, *t) : 0;
}
int api_preemptive_tasks(scoria_session* s, const scoria_queue* q, const scoria_task* const* t,
                         size_t n) {
  if (!s || !q || (!t && n > 0)) return 0;
  for (size_t i = 0; i < n; ++i)
    if (!t[i]) return 0;
  return mut(s)->dispatch().preemptive_tasks(*q, {t, n});
}
void api_evictable(scoria_session* s, const scoria_eviction_context* ctx,
                   const scoria_task* const* c, size_t n, uint8_t* sel) {
  if (!sel) return;
  // Fail closed: a context the host cannot read names no victim.
  std::fill_n(sel, n, uint8_t{0});
  if (!s || !ctx || ctx->struct_size < sizeof(scoria_eviction_context) || (!c && n > 0)) return;
  for (size_t i = 0; i < n; ++i)
    if (!c[i]) return;
  mut(s)->dispatch().evictable(*ctx, {c, n}, sel);
}
int api_action_enabled(const scoria_session* s, scoria_str action) {
  return mut(s)->action_enabled(V(action));
}

// --- statements ----------------------------------------------------------------------------
scoria_statement* api_statement_open(scoria_session* s) { return mut(s)->open_statement(); }
scoria_code api_statement_allocate(scoria_statement* st, const scoria_task* t,
                                   const scoria_node* n) {
  if (!st || !t || !n) return SCORIA_INVALID_ARGUMENT;
  return stmt_of(st)->allocate(*mut(t), *mut(n));
}
scoria_code api_statement_pipeline(scoria_statement* st, const scoria_task* t,
                                   const scoria_node* n) {
  if (!st || !t || !n) return SCORIA_INVALID_ARGUMENT;
  return stmt_of(st)->pipeline(*mut(t), *mut(n));
}
scoria_code api_statement_evict(scoria_statement* st, const scoria_task* t, scoria_str reason) {
  if (!st || !t) return SCORIA_INVALID_ARGUMENT;
  return stmt_of(st)->evict(*mut(t), std::string(V(reason)));
}
scoria_code api_statement_commit(scoria_statement* st) {
  if (!st) return SCORIA_INVALID_ARGUMENT;
  auto* s = stmt_of(st);
  s->commit();
  s->session().close_statement(s);
  return SCORIA_OK;
}
void api_statement_discard(scoria_statement* st) {
  if (!st) return;
  auto* s = stmt_of(st);
  s->discard();
  s->session().close_statement(s);
}
scoria_code api_statement_merge(scoria_statement* into, scoria_statement* from) {
  if (!into || !from || into == from) return SCORIA_INVALID_ARGUMENT;
  auto* target = stmt_of(into);
  auto* source = stmt_of(from);
  if (&target->session() != &source->session()) return SCORIA_INVALID_ARGUMENT;
  target->merge(*source);
  source->session().close_statement(source);
  return SCORIA_OK;
}
scoria_code api_task_set_bind_annotation(scoria_session* s, const scoria_task* t, scoria_str key,
                                         scoria_str value) {
  if (!s || !t || t->ssn != mut(s)) return SCORIA_INVALID_ARGUMENT;
  return mut(s)->set_bind_annotation(*mut(t), V(key), V(value));
}
scoria_code api_task_bind_annotation(const scoria_task* t, scoria_str key, scoria_str* v) {
  if (!t) return SCORIA_INVALID_ARGUMENT;
  for (const auto& [k, value] : t->ssn->bind_annotations_of(*t))
    if (k == V(key)) {
      if (v) *v = S(value);
      return SCORIA_OK;
    }
  return SCORIA_NOT_FOUND;
}
size_t api_statement_size(const scoria_statement* st) {
  return st ? static_cast<const scoria::session::Statement*>(st)->size() : 0;
}

// Every entry guarded (abi/guarded.h): nothing the host throws reaches the
// plugin that called it.
#define GUARDED(f) &scoria::abi::Guarded<&f>::call
#define GUARDED_ANSWER(f, on_throw) &scoria::abi::GuardedAnswer<&f, on_throw>::call
const scoria_host_api kApi = {
    sizeof(scoria_host_api),
    SCORIA_ABI_VERSION_MAJOR,
    SCORIA_ABI_VERSION_MINOR,
    GUARDED(api_log),
    GUARDED(api_log_enabled),
    GUARDED(api_report_error),
    GUARDED(api_args_get_int),
    GUARDED(api_args_get_float),
    GUARDED(api_args_get_bool),
    GUARDED(api_args_get_string),
    GUARDED(api_args_count),
    GUARDED(api_args_key_at),
    GUARDED(api_reason_intern),
    GUARDED(api_reason_text),
    GUARDED(api_dim_count),
    GUARDED(api_dim_name),
    GUARDED(api_dim_find),
    GUARDED(api_queue_count),
    GUARDED(api_queue_at),
    GUARDED(api_job_count),
    GUARDED(api_job_at),
    GUARDED(api_node_count),
    GUARDED(api_node_at),
    GUARDED(api_node_find),
    GUARDED(api_queue_find),
    GUARDED(api_job_task_count),
    GUARDED(api_job_task_at),
    GUARDED(api_node_task_count),
    GUARDED(api_node_task_at),
    GUARDED(api_task_info),
    GUARDED(api_job_info),
    GUARDED(api_queue_info),
    GUARDED(api_node_info),
    GUARDED(api_job_session),
    GUARDED(api_node_label),
    GUARDED(api_node_label_count),
    GUARDED(api_node_label_at),
    GUARDED(api_node_taint_count),
    GUARDED(api_node_taint_at),
    GUARDED(api_task_label),
    GUARDED(api_task_annotation),
    GUARDED(api_job_annotation),
    GUARDED(api_task_selector_count),
    GUARDED(api_task_selector_at),
    GUARDED(api_task_toleration_count),
    GUARDED(api_task_toleration_at),
    GUARDED(api_term_count),
    GUARDED(api_term_weight),
    GUARDED(api_requirement_count),
    GUARDED(api_requirement_at),
    GUARDED(api_task_object_json),
    GUARDED(api_job_less),
    GUARDED(api_queue_less),
    GUARDED(api_task_less),
    GUARDED(api_victim_queue_less),
    GUARDED(api_predicate_nodes),
    GUARDED(api_predicate),
    GUARDED(api_node_scores),
    GUARDED_ANSWER(api_best_node, -1),
    GUARDED(api_job_valid),
    GUARDED(api_job_ready),
    GUARDED(api_job_pipelined),
    GUARDED(api_job_enqueueable),
    GUARDED(api_job_enqueued),
    GUARDED(api_job_starving),
    GUARDED_ANSWER(api_overused, 1),
    GUARDED(api_allocatable),
    GUARDED(api_preemptable),
    GUARDED(api_reclaimable),
    GUARDED(api_victim_tasks),
    GUARDED(api_job_set_phase),
    GUARDED(api_job_set_fit_error),
    GUARDED(api_action_enabled),
    GUARDED(api_statement_open),
    GUARDED(api_statement_allocate),
    GUARDED(api_statement_pipeline),
    GUARDED(api_statement_evict),
    GUARDED(api_statement_commit),
    GUARDED(api_statement_discard),
    GUARDED(api_statement_size),
    GUARDED(api_queue_annotation),
    GUARDED(api_session_queue_set_deserved),
    GUARDED(api_preemptive),
    GUARDED(api_statement_merge),
    GUARDED(api_namespace_label_count),
    GUARDED(api_namespace_label_at),
    GUARDED(api_namespace_label),
    GUARDED(api_session_now_ms),
    GUARDED(api_node_annotation),
    GUARDED(api_evictable),
    GUARDED(api_preemptive_tasks),
    GUARDED(api_queue_object_json),
    GUARDED(api_session_object_count),
    GUARDED(api_session_object_json),
    GUARDED(api_job_min_task_member_count),
    GUARDED(api_job_min_task_member_at),
    GUARDED(api_predicate_without),
    GUARDED(api_task_set_bind_annotation),
    GUARDED(api_task_bind_annotation),
    GUARDED(api_hypernode_count),
    GUARDED(api_hypernode_info),
    GUARDED_ANSWER(api_hypernode_find, SCORIA_NO_HYPERNODE),
    GUARDED(api_job_network_topology),
    GUARDED(api_job_set_allocated_hypernode),
    GUARDED(api_hypernode_scores),
    GUARDED(api_hypernode_gradient),
    GUARDED(api_tasks_with_features),
    GUARDED(sub_job_api::job_sub_job_count),
    GUARDED(sub_job_api::job_sub_job_at),
    GUARDED(sub_job_api::task_sub_job),
    GUARDED(sub_job_api::sub_job_info),
    GUARDED(sub_job_api::sub_job_task_count),
    GUARDED(sub_job_api::sub_job_task_at),
    GUARDED(sub_job_api::job_sub_group_policy_count),
    GUARDED(sub_job_api::job_sub_group_policy_at),
    GUARDED(sub_job_api::sub_job_network_topology),
    GUARDED(sub_job_api::set_allocated_hypernode),
    GUARDED(sub_job_api::ready),
    GUARDED(sub_job_api::pipelined),
    GUARDED(sub_job_api::less),
    GUARDED(sub_job_api::hypernode_scores),
    GUARDED(sub_job_api::hypernode_gradient),
    GUARDED(api_select_node),
    GUARDED(api_queue_job_sums),
    GUARDED(api_jobs_where),
    GUARDED(api_volume_check),
    GUARDED(api_task_device_demands),
    GUARDED(api_queue_set_real_capability),
    GUARDED(api_lift_queue_gate),
    GUARDED(api_node_totals),
};

}  // namespace

namespace scoria::abi {

const scoria_host_api* host_api() { return &kApi; }

}  // namespace scoria::abi
