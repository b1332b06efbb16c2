// A job's sub-jobs, as Volcano HEAD forms them from its PodGroup's
// spec.subGroupPolicy (api/job_info.go getOrCreateSubJob, sub_job_info.go):
// a pod goes to the first policy whose labelSelector takes it and whose
// matchLabelKeys it carries, each with a value, into that policy's sub-job
// for those values; a pod no policy takes goes to the job's default
// sub-job. A policy without matchLabelKeys takes no pod (Volcano reads its
// empty list of values as no match).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/objects.h"

namespace scoria::session {

struct FormedSubJob {
  /// "<job>/<policy name>-<values joined by ->" (Volcano's SubJobID); the
  /// job's key for the default sub-job.
  std::string uid;
  /// "<job>/<policy name>" (SubJobGID), shared by a policy's sub-jobs; the
  /// job's key for the default sub-job.
  std::string gid;
  /// The policy in PodGroup::sub_group_policy that made it; -1: the default.
  int32_t policy = -1;
  /// subGroupSize; for the default sub-job, minMember when the PodGroup has
  /// no policy at all, else 1.
  int32_t min_available = 1;
  /// The first match value read as a number, else 0 (the order's fallback).
  int64_t match_index = 0;
  /// The highest priority of its pods, and at least 0.
  int32_t priority = 0;
  /// Its pods, as positions in what make_sub_jobs() was given, in order.
  std::vector<uint32_t> members;
};

struct SubJobs {
  /// In the order their first pod came.
  std::vector<FormedSubJob> sub_jobs;
  /// Each pod's sub-job, by position.
  std::vector<uint32_t> of_pod;
};

/// The sub-jobs of `group`'s pods `pods` (with their resolved `priorities`,
/// side by side); `job` is the job's key, "<namespace>/<PodGroup name>".
SubJobs make_sub_jobs(const model::PodGroup& group, std::string_view job,
                      std::span<const model::Pod* const> pods, std::span<const int32_t> priorities);

/// The values that place `pod` under `policy` (getSubJobMatchValues): one
/// per matchLabelKeys entry; empty when the policy does not take the pod.
std::vector<std::string> sub_job_match_values(const model::SubGroupPolicy& policy,
                                              const model::Pod& pod);

/// Volcano's getSubJobID: values longer than 128 characters once joined are
/// replaced by an encoding of their FNV-1a hash.
std::string sub_job_uid(std::string_view job, std::string_view policy,
                        std::span<const std::string> values);

}  // namespace scoria::session
