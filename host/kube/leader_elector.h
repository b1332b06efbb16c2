// Leader election on a coordination.k8s.io/v1 Lease, as client-go's
// leaderelection with Volcano's flags: a candidate takes the Lease when its
// holder has not renewed it for the lease duration (as observed here, so
// that clocks need not agree), the leader renews it every retry period, and
// a leader that has not renewed within the renew deadline stops leading at
// once, before the lease can pass to another (renew deadline < lease
// duration). Only the leader schedules and writes.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "kube/api_client.h"

namespace scoria::kube {

struct LeaderElectionOptions {
  std::string lease_namespace = "volcano-system";
  std::string lease_name;  // the scheduler names joined by "-" when empty (Volcano's)
  std::string identity;    // hostname_random when empty
  std::chrono::milliseconds lease_duration{15000};
  std::chrono::milliseconds renew_deadline{10000};
  std::chrono::milliseconds retry_period{2000};
};

class LeaderElector {
 public:
  LeaderElector(ApiClient& client, LeaderElectionOptions options);
  ~LeaderElector();
  LeaderElector(const LeaderElector&) = delete;
  LeaderElector& operator=(const LeaderElector&) = delete;

  void start();
  void stop();
  /// True while this process holds the Lease (and renewed it within the
  /// renew deadline).
  const std::atomic<bool>& leading() const { return leading_; }
  const std::string& identity() const { return options_.identity; }
  /// The holder last seen on the Lease ("" if none).
  std::string holder() const;

 private:
  void run();
  /// One try to take or keep the Lease; true if held afterwards.
  bool try_acquire_or_renew();
  /// Gives the Lease up on the way out, if this process held it.
  void release();

  ApiClient& client_;
  LeaderElectionOptions options_;
  std::unique_ptr<Connection> connection_;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> leading_{false};
  bool was_leading_ = false;  // when the thread ended
  mutable std::mutex mutex_;
  std::string holder_;
  // What was last observed on the Lease, and when (by our clock).
  std::string observed_record_;
  std::chrono::steady_clock::time_point observed_at_{};
};

}  // namespace scoria::kube
