// One informer's reflector, as client-go's: list a resource (in pages),
// then watch it from the list's resourceVersion with bookmarks; when the
// watch ends or breaks, watch again from the last version seen, after a
// backoff with jitter when it broke; when the server says that version is
// gone (410), list again and report what disappeared meanwhile as
// deletions. Runs on a thread of its own; what it decodes goes to a
// ChangeQueue. An object that does not decode is logged once per version
// and skipped, never a stop.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/resources.h"
#include "cache/object_change.h"
#include "kube/api_client.h"
#include "kube/change_queue.h"

namespace scoria::kube {

struct ReflectorOptions {
  Clock::duration request_timeout = std::chrono::seconds(60);
  size_t page_size = 500;  // client-go's pager default
  // More objects than this in one list is a server that never ends its
  // pages: S5, the largest cluster measured, lists a million pods.
  size_t max_list_objects = 20'000'000;
  // Backoff after a failure: doubled up to the cap, each wait drawn from
  // [d, 2d) (client-go's jitter of 1.0).
  Clock::duration backoff_initial = std::chrono::milliseconds(800);
  Clock::duration backoff_cap = std::chrono::seconds(30);
  // Watches last this long at most (client-go picks 5 to 10 minutes).
  int min_watch_seconds = 300;
};

/// What the API server was last found not to serve, shared by a source's
/// reflectors: a whole group missing (resource.k8s.io before Kubernetes
/// 1.34) is said once, not once per kind.
class Absences {
 public:
  /// True if `what` was not already noted absent (the caller says so).
  bool note_absent(std::string_view what);
  /// `what` is served again: its next absence is said again.
  void note_served(std::string_view what);

 private:
  std::mutex mutex_;
  std::set<std::string, std::less<>> absent_;
};

class Reflector {
 public:
  /// `absences`, when given, outlives the reflector.
  Reflector(ApiClient& client, const api::Resource& resource, ChangeQueue& out,
            ReflectorOptions options = {}, Absences* absences = nullptr);
  ~Reflector();
  Reflector(const Reflector&) = delete;
  Reflector& operator=(const Reflector&) = delete;

  void start();
  /// Ends the thread: a blocked list or watch is cancelled.
  void stop();

  /// Counts since start (for metrics and tests).
  uint64_t lists() const { return lists_; }
  uint64_t watches() const { return watches_; }

 private:
  struct Gone {};
  // The API server has no such resource: an optional CRD not installed.
  struct Absent {};
  void run();
  void list();
  void watch();
  void backoff_wait(Clock::duration& backoff, std::optional<std::chrono::seconds> hint);
  /// The change `item` stands for (appended to `out`), and its key; false
  /// (logged once per version) if it does not decode.
  bool decode(nlohmann::json& item, std::vector<cache::ObjectChange>& out);
  /// Logs an object that does not decode, once per version of it.
  void log_undecodable(const std::string& key, const std::string& version,
                       const std::string& error);
  std::string key_of(const nlohmann::json& item) const;
  std::string path() const;
  void log_failure(const std::string& what);

  ApiClient& client_;
  const api::Resource& resource_;
  cache::Kind kind_;
  ChangeQueue& out_;
  ReflectorOptions options_;
  Absences* absences_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  std::mutex connection_mutex_;  // guards connection_ against stop()
  std::unique_ptr<Connection> connection_;
  std::string version_;  // the last resourceVersion seen; empty: list first
  // Keys seen, so that a relist can report what was deleted meanwhile.
  std::unordered_map<std::string, std::string> known_;
  std::unordered_map<std::string, std::string> undecodable_;  // key -> version logged
  std::minstd_rand random_;
  bool listed_once_ = false;
  bool absent_logged_ = false;
  Clock::time_point listed_at_{};  // when the last list completed
  std::atomic<uint64_t> lists_{0}, watches_{0};
};

}  // namespace scoria::kube
