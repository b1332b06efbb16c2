// Victim bundles of the gang actions (Volcano's actions/utils bundle model):
// the candidate victims of one job are split into a *safe* bundle, tasks the
// job can lose and still keep its gang (minAvailable ready tasks), and a
// *whole* bundle, tasks whose eviction breaks the gang. Safe bundles are
// spent before whole ones.
//
// A task is safe when the job keeps minAvailable ready tasks and each role
// with a minimum (PodGroup minTaskMember, read through ABI 1.4) keeps that
// many without it, as Volcano's CreateJobBundles counts them. Sub-job
// groups, which Volcano also weighs, are not visible through the ABI.
#ifndef SCORIA_PLUGINS_EVICTION_BUNDLES_H
#define SCORIA_PLUGINS_EVICTION_BUNDLES_H

#include <scoria/scoria.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace eviction {

// A running task that a gang action may evict. Pointers are host-owned,
// valid for the session.
struct Victim {
  const scoria_task* task;
  std::string_view uid;
  int32_t priority;  // the pod's
  const double* resreq;
};

enum class BundleType { kSafe = 0, kWhole = 1 };

struct Bundle {
  BundleType type = BundleType::kSafe;
  const scoria_job* job = nullptr;
  const scoria_queue* queue = nullptr;  // the job's
  std::string_view job_uid;
  std::vector<Victim> tasks;
  std::vector<double> local;   // what its tasks ask for
  std::vector<double> global;  // whole: what every task of the job asks for; safe: nothing
  size_t rank = 0;             // its job's (or queue's) place in the victim order, first is 0
};

// The bundles of one victim job from its candidate tasks, lowest pod
// priority first (then uid): while the job keeps more than minAvailable ready
// tasks, a task is safe if its role (when it has a minimum) also keeps more
// than its minimum; the rest are whole. A job already short of minAvailable
// has only a safe bundle.
std::vector<Bundle> job_bundles(const scoria_job* job, std::vector<Victim> tasks, size_t dims);

// The bundles' tasks, in bundle order (what the plugins are asked about).
std::vector<const scoria_task*> flatten(std::span<const Bundle> bundles);

// Keeps what the plugins permit; `selected` is in flatten's order. A safe
// bundle keeps its permitted tasks; a whole bundle stays only if all of its
// tasks are permitted, since evicting part of it breaks the gang for
// nothing.
std::vector<Bundle> keep_permitted(std::vector<Bundle> bundles, std::span<const uint8_t> selected,
                                   size_t dims);

// Volcano's bundle order: safe before whole, then by rank, then the better
// return on what the gang needs (the share of `need` the bundle frees over
// the share its whole job holds; safe bundles free without cost), then job
// uid, first task uid and size, so that the order is total.
void sort_bundles(std::vector<Bundle>& bundles, std::span<const double> need);

}  // namespace eviction

#endif  // SCORIA_PLUGINS_EVICTION_BUNDLES_H
