#include "bundles.h"

#include <scoria/scoria.hpp>

#include <algorithm>
#include <limits>
#include <tuple>
#include <utility>

namespace eviction {

namespace {

std::vector<double> sum_of(std::span<const Victim> tasks, size_t dims) {
  std::vector<double> out(dims, 0.0);
  for (const Victim& v : tasks)
    for (size_t d = 0; d < dims; ++d) out[d] += v.resreq[d];
  return out;
}

Bundle make(BundleType type, const scoria_job_info& ji, const scoria_job* job,
            std::vector<Victim> tasks, size_t dims) {
  Bundle b;
  b.type = type;
  b.job = job;
  b.queue = ji.queue;
  b.job_uid = scoria::view(ji.uid);
  b.local = sum_of(tasks, dims);
  b.tasks = std::move(tasks);
  b.global.assign(dims, 0.0);
  if (type == BundleType::kWhole && ji.total_request != nullptr)
    b.global.assign(ji.total_request, ji.total_request + dims);
  return b;
}

// Sum over the resources `need` names of have/need, each term capped at 1
// when `cap` (Volcano's scoreAgainstNeed). The pod count is not a resource
// Volcano's vectors carry, so it does not count.
double score_against(std::span<const double> have, std::span<const double> need, bool cap) {
  double score = 0;
  for (size_t d = 0; d < need.size() && d < have.size(); ++d) {
    if (d == SCORIA_DIM_PODS || need[d] < SCORIA_RESOURCE_EPSILON) continue;
    const double v = cap ? std::min(have[d], need[d]) : have[d];
    score += v / need[d];
  }
  return score;
}

double return_on(const Bundle& b, std::span<const double> need) {
  const double global = score_against(b.global, need, false);
  if (global == 0) return std::numeric_limits<double>::infinity();
  return score_against(b.local, need, true) / global;
}

// How many more tasks each role with a minimum (PodGroup minTaskMember) can
// lose before falling below it, counting what Volcano's CheckTaskReady
// counts: allocated and succeeded tasks, and pending ones that ask for
// nothing. Empty when minAvailable is below the sum of the minimums, where
// Volcano's gang leaves the roles to minAvailable, and on a host older than
// ABI 1.4.
struct RoleSurplus {
  std::string_view role;
  int32_t surplus = 0;
};

std::vector<RoleSurplus> role_surpluses(const scoria_job* job, int32_t min_available) {
  const std::vector<scoria::RoleMinimum> mins = scoria::min_task_members(job);
  int64_t total = 0;
  for (const scoria::RoleMinimum& m : mins) total += m.min;
  std::vector<RoleSurplus> out;
  if (mins.empty() || min_available < total) return out;
  for (const scoria::RoleMinimum& m : mins) out.push_back(RoleSurplus{m.role, -m.min});
  const size_t count = scoria::api().job_task_count(job);
  for (size_t i = 0; i < count; ++i) {
    const scoria_task* task = scoria::api().job_task_at(job, i);
    if (task == nullptr) continue;
    const scoria_task_info ti = scoria::info(task);
    const bool ready = (ti.status & scoria::kReadyStatuses) != 0 ||
                       (ti.status == SCORIA_TASK_PENDING && ti.best_effort != 0);
    if (!ready) continue;
    const std::string_view role = scoria::view(ti.role);
    for (RoleSurplus& r : out)
      if (r.role == role) {
        ++r.surplus;
        break;
      }
  }
  return out;
}

RoleSurplus* surplus_of(std::vector<RoleSurplus>& roles, const scoria_task* task) {
  const std::string_view role = scoria::view(scoria::info(task).role);
  for (RoleSurplus& r : roles)
    if (r.role == role) return &r;
  return nullptr;
}

}  // namespace

std::vector<Bundle> job_bundles(const scoria_job* job, std::vector<Victim> tasks, size_t dims) {
  std::vector<Bundle> out;
  if (job == nullptr || tasks.empty()) return out;
  std::sort(tasks.begin(), tasks.end(), [](const Victim& l, const Victim& r) {
    return std::tie(l.priority, l.uid) < std::tie(r.priority, r.uid);
  });
  const scoria_job_info ji = scoria::info(job);
  int32_t surplus = scoria::count_status(ji, scoria::kReadyStatuses) - ji.min_available;
  // Already short of its gang: no eviction breaks it further.
  if (surplus < 0) {
    out.push_back(make(BundleType::kSafe, ji, job, std::move(tasks), dims));
    return out;
  }
  std::vector<RoleSurplus> roles = role_surpluses(job, ji.min_available);
  std::vector<Victim> safe, whole;
  for (const Victim& v : tasks) {
    // A task whose role is at its minimum breaks the gang as surely as one
    // that takes the job below minAvailable.
    RoleSurplus* role = surplus_of(roles, v.task);
    if (surplus > 0 && (role == nullptr || role->surplus > 0)) {
      safe.push_back(v);
      --surplus;
      if (role != nullptr) --role->surplus;
    } else {
      whole.push_back(v);
    }
  }
  if (!safe.empty()) out.push_back(make(BundleType::kSafe, ji, job, std::move(safe), dims));
  if (!whole.empty()) out.push_back(make(BundleType::kWhole, ji, job, std::move(whole), dims));
  return out;
}

std::vector<const scoria_task*> flatten(std::span<const Bundle> bundles) {
  std::vector<const scoria_task*> out;
  for (const Bundle& b : bundles)
    for (const Victim& v : b.tasks) out.push_back(v.task);
  return out;
}

std::vector<Bundle> keep_permitted(std::vector<Bundle> bundles, std::span<const uint8_t> selected,
                                   size_t dims) {
  std::vector<Bundle> out;
  size_t at = 0;
  for (Bundle& b : bundles) {
    std::vector<Victim> permitted;
    for (const Victim& v : b.tasks) {
      if (at < selected.size() && selected[at] != 0) permitted.push_back(v);
      ++at;
    }
    if (permitted.empty()) continue;
    if (b.type == BundleType::kWhole) {
      if (permitted.size() == b.tasks.size()) out.push_back(std::move(b));
      continue;
    }
    b.local = sum_of(permitted, dims);
    b.tasks = std::move(permitted);
    out.push_back(std::move(b));
  }
  return out;
}

void sort_bundles(std::vector<Bundle>& bundles, std::span<const double> need) {
  // Every key is computed once, so the comparison is a strict weak order
  // whatever the plugins answer.
  struct Keyed {
    double roi;
    Bundle bundle;
  };
  std::vector<Keyed> keyed;
  keyed.reserve(bundles.size());
  for (Bundle& b : bundles) {
    const double roi = return_on(b, need);
    keyed.push_back(Keyed{roi, std::move(b)});
  }
  const auto first_uid = [](const Bundle& b) {
    return b.tasks.empty() ? std::string_view{} : b.tasks.front().uid;
  };
  std::stable_sort(keyed.begin(), keyed.end(), [&](const Keyed& l, const Keyed& r) {
    const Bundle& a = l.bundle;
    const Bundle& b = r.bundle;
    if (a.type != b.type) return a.type < b.type;
    if (a.rank != b.rank) return a.rank < b.rank;
    if (l.roi != r.roi) return l.roi > r.roi;
    if (a.job_uid != b.job_uid) return a.job_uid < b.job_uid;
    if (first_uid(a) != first_uid(b)) return first_uid(a) < first_uid(b);
    return a.tasks.size() < b.tasks.size();
  });
  bundles.clear();
  for (Keyed& k : keyed) bundles.push_back(std::move(k.bundle));
}

}  // namespace eviction
