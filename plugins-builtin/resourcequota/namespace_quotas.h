// The session's ResourceQuotas as the resourcequota plugin weighs them: per
// namespace, each quota's hard limits and what is used against them, in the
// units of the session's resource vectors. Both come from the status the
// quota controller writes (status.hard, status.used) where the cluster has
// one; where none was written (object files, the local store), hard is
// spec.hard and the use is counted from the session's pods as the
// controller counts a namespace's pods.
#ifndef SCORIA_RESOURCEQUOTA_NAMESPACE_QUOTAS_H
#define SCORIA_RESOURCEQUOTA_NAMESPACE_QUOTAS_H

#include <scoria/scoria.h>

#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace resourcequota {

struct Quota {
  std::string namespace_;
  std::string name;
  std::map<std::string, double> hard;  // by resource name, in vector units
  std::map<std::string, double> used;
  bool has_status = false;  // status.hard was written

  std::string uid() const { return namespace_ + "/" + name; }
};

class SessionQuotas {
 public:
  explicit SessionQuotas(const scoria_session* ssn);

  bool empty() const { return quotas_.empty(); }
  size_t size() const { return quotas_.size(); }

  /// Volcano's rule: for every quota of the job's namespace, every resource
  /// the quota limits and the job's minResources asks for must fit: used,
  /// plus the minResources of the namespace's jobs enqueued earlier in this
  /// session, plus the job's own, at most hard. The refusal names the first
  /// quota (by name) that does not fit and its resources that do not;
  /// nullopt when every one fits.
  std::optional<std::string> refusal(const scoria_job* job) const;
  /// `job` was enqueued: its minResources are pending against its
  /// namespace's quotas for the rest of the session.
  void enqueued(const scoria_job* job);

 private:
  void read(const scoria_session* ssn);
  void count_use(const scoria_session* ssn);

  const scoria_session* ssn_;
  std::vector<Quota> quotas_;  // by namespace, then name
  std::unordered_map<std::string, std::vector<size_t>> by_namespace_;
  std::unordered_map<std::string, std::vector<double>> pending_;  // by namespace, per dimension
};

}  // namespace resourcequota

#endif  // SCORIA_RESOURCEQUOTA_NAMESPACE_QUOTAS_H
