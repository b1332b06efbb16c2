// The allocate action for a job with sub-jobs (spec.subGroupPolicy, ABI
// 1.9) or a network topology (ABI 1.6): Volcano's allocateForJob and
// allocateForSubJob over the worksheet organizeJobWorksheet makes.
#include "allocate.h"

#include <algorithm>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace scoria_allocate {

std::vector<SubJobWork> Allocate::collect_sub_jobs(const scoria_job* job) {
  std::vector<SubJobWork> subs;
  const size_t count = api().job_sub_job_count(job);
  for (size_t i = 0; i < count; ++i) {
    const scoria_sub_job* sj = api().job_sub_job_at(job, i);
    const size_t begin = tasks_.size();
    collect_tasks(api().sub_job_task_count(sj),
                  [sj](size_t k) { return api().sub_job_task_at(sj, k); });
    if (tasks_.size() == begin) continue;
    const scoria_sub_job_info si = scoria::info(sj);
    subs.push_back(SubJobWork{sj, Cursor{begin, tasks_.size(), {}}, si.min_available, si.task_count,
                              scoria::network_topology(sj).mode != SCORIA_TOPOLOGY_NONE});
  }
  return subs;
}

void Allocate::organize_worksheet(JobWork& jw) {
  const std::vector<scoria::SubGroupPolicy> policies = scoria::sub_group_policies(jw.job);
  // Ready sub-jobs (then required ones) counted by group, against its
  // minSubGroups.
  const scoria::SubGroupMinimums groups = scoria::sub_group_minimums(policies);
  std::vector<int32_t> counted(groups.min.size(), 0);
  std::vector<const scoria_sub_job*> not_ready;
  const size_t count = api().job_sub_job_count(jw.job);
  for (size_t i = 0; i < count; ++i) {
    const scoria_sub_job* sj = api().job_sub_job_at(jw.job, i);
    if (api().session_sub_job_ready(ssn_, sj) == 0) {
      not_ready.push_back(sj);
      continue;
    }
    // The default sub-job belongs to no policy, whatever a policy is named.
    const uint32_t p = scoria::info(sj).policy;
    if (p < policies.size()) ++counted[groups.group_of[p]];
  }
  const auto less = [this](const scoria_sub_job* l, const scoria_sub_job* r) {
    return api().session_sub_job_less(ssn_, l, r) != 0;
  };
  std::make_heap(not_ready.begin(), not_ready.end(), less);
  std::sort_heap(not_ready.begin(), not_ready.end(), less);
  for (const scoria_sub_job* sj : not_ready) {
    const uint32_t p = scoria::info(sj).policy;
    if (p >= policies.size()) continue;  // the default sub-job is never required
    const uint32_t g = groups.group_of[p];
    if (counted[g] >= groups.min[g]) continue;
    ++counted[g];
    for (SubJobWork& s : jw.subs)
      if (s.sj == sj) s.required = true;
  }
}

bool Allocate::replay(const JobWork& jw, const std::vector<Placement>& plan,
                      scoria_statement* stmt) {
  for (const Placement& p : plan) {
    const scoria_code rc = p.idle ? api().statement_allocate(stmt, p.task, p.node)
                                  : api().statement_pipeline(stmt, p.task, p.node);
    if (rc != SCORIA_OK) {
      log_line(SCORIA_LOG_ERROR, "placing job <", jw.uid, "> again failed: code ",
               static_cast<int>(rc));
      return false;
    }
  }
  return true;
}

SubJobWork* Allocate::next_sub_job(std::vector<SubJobWork>& ws) const {
  SubJobWork* best = nullptr;
  for (SubJobWork& s : ws) {
    if (!s.alive) continue;
    if (best == nullptr ||
        (s.required != best->required ? s.required
                                      : api().session_sub_job_less(ssn_, s.sj, best->sj) != 0)) {
      best = &s;
    }
  }
  return best;
}

bool Allocate::allocate_sub_jobs(JobWork& jw) {
  if (!tree_) tree_.emplace(ssn_);
  if (std::none_of(jw.subs.begin(), jw.subs.end(), [](const SubJobWork& s) { return s.alive; }))
    return false;
  const Index job_before = scoria::network_topology(jw.job).allocated_hypernode;
  std::vector<Index> before;
  for (const SubJobWork& s : jw.subs) before.push_back(allocated_of(s.sj));
  const auto restore = [&] {
    for (size_t k = 0; k < jw.subs.size(); ++k) set_allocated(jw.subs[k].sj, before[k]);
  };
  const auto try_in = [&](Index h) -> std::optional<JobTrial> {
    JobTrial trial{h, {}, jw.subs, {}, 0};
    scoria::Statement stmt(ssn_);
    if (!stmt) return std::nullopt;
    while (SubJobWork* next = next_sub_job(trial.subs)) {
      SubJobWork& s = *next;
      std::optional<SubJobTrial> r = allocate_sub_job(jw, s, h);
      if (!r || r->plan.empty() || !replay(jw, r->plan, stmt.get())) {
        s.alive = false;  // gone from this trial's worksheet
        continue;
      }
      s.cursor = std::move(r->cursor);
      s.alive = !s.cursor.done();
      set_allocated(s.sj, r->allocated);
      trial.plan.insert(trial.plan.end(), r->plan.begin(), r->plan.end());
      trial.score += r->score;
      if (api().session_job_ready(ssn_, jw.job) != 0) break;
    }
    for (const SubJobWork& s : jw.subs) trial.allocated.push_back(allocated_of(s.sj));
    restore();
    const bool ok = !trial.plan.empty() && (api().session_job_ready(ssn_, jw.job) != 0 ||
                                            api().session_job_pipelined(ssn_, jw.job) != 0);
    stmt.discard();
    if (!ok) return std::nullopt;
    return trial;
  };
  std::optional<JobTrial> best = best_in_gradients(
      tree_->size(),
      [&](Index* hypernodes, uint32_t* gradient, size_t capacity) {
        return api().session_hypernode_gradient(ssn_, jw.job, tree_->top(), SCORIA_SEARCH_ALLOCATE,
                                                hypernodes, gradient, capacity);
      },
      [](const Index*, size_t, double*) {}, try_in);
  if (!best) {
    log_line(SCORIA_LOG_V3, "job <", jw.uid, "> fits in no HyperNode its topology allows");
    return false;
  }
  scoria::Statement stmt(ssn_);
  if (!stmt || !replay(jw, best->plan, stmt.get())) return false;
  jw.subs = std::move(best->subs);
  log_line(SCORIA_LOG_V3, "job <", jw.uid, "> placed in HyperNode <", tree_->name(best->hypernode),
           ">");
  if (!finish(jw, stmt)) return false;
  // Committed: where the job and its sub-jobs now are (Volcano's
  // UpdateDecisionToJob).
  api().session_job_set_allocated_hypernode(ssn_, jw.job, tree_->lca(job_before, best->hypernode));
  for (size_t k = 0; k < jw.subs.size(); ++k) set_allocated(jw.subs[k].sj, best->allocated[k]);
  return std::any_of(jw.subs.begin(), jw.subs.end(), [](const SubJobWork& s) { return s.alive; });
}

std::optional<Allocate::SubJobTrial> Allocate::allocate_sub_job(const JobWork& jw,
                                                                const SubJobWork& s, Index h) {
  const Index before = allocated_of(s.sj);
  const auto try_in = [&](Index within) -> std::optional<SubJobTrial> {
    Scope scope(ssn_, *tree_, within, s.sj, s.topology, before);
    scoria::Statement stmt(ssn_);
    if (!stmt) return std::nullopt;
    Cursor cursor = s.cursor;
    place_tasks(jw, cursor, stmt.get(), &scope, &s);
    const bool ok = stmt.size() > 0 && (api().session_sub_job_ready(ssn_, s.sj) != 0 ||
                                        api().session_sub_job_pipelined(ssn_, s.sj) != 0);
    SubJobTrial a{within, std::move(scope.plan), std::move(cursor), tree_->lca(before, within), 0};
    stmt.discard();
    set_allocated(s.sj, before);
    if (!ok) return std::nullopt;
    return a;
  };
  return best_in_gradients(
      tree_->size(),
      [&](Index* hypernodes, uint32_t* gradient, size_t capacity) {
        return api().session_sub_job_hypernode_gradient(ssn_, s.sj, h, SCORIA_SEARCH_ALLOCATE,
                                                        hypernodes, gradient, capacity);
      },
      [&](const Index* which, size_t count, double* scores) {
        api().session_sub_job_hypernode_scores(ssn_, s.sj, which, count, scores);
      },
      try_in);
}

}  // namespace scoria_allocate
