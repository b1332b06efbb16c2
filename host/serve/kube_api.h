// The local store behind Kubernetes' API conventions, so that kubectl and
// the Kubernetes client libraries drive `scoria serve` as they drive a
// cluster: discovery, list (label and field selectors, limit/continue),
// get, create, update with optimistic concurrency, the three patch types,
// delete (pods with a grace period), watch (resumable, 410 once compacted),
// the status, binding and eviction subresources, and Status errors.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/object_meta.h"
#include "api/request_path.h"
#include "http/server.h"
#include "schema/unknown_fields.h"
#include "serve/watch_hub.h"
#include "store/object_store.h"

namespace scoria::serve {

class WrittenObjects;

class KubeApi {
 public:
  /// Writes go to `store`; what they decode to is left in `written` for
  /// the cache. `field_validation` is what a write that names no
  /// fieldValidation gets (the API server's default is Warn).
  /// `write_token`: the bearer token writes need (none: every client may
  /// write), for what access reviews answer.
  KubeApi(store::ObjectStore& store, WatchHub& watchers, WrittenObjects& written,
          schema::FieldValidation field_validation = schema::FieldValidation::kWarn,
          std::string write_token = {})
      : store_(store),
        watchers_(watchers),
        written_(written),
        field_validation_(field_validation),
        write_token_(std::move(write_token)) {}

  /// With Volcano's SchedulingGatesQueueAdmission, a pod created with the
  /// opt-in annotation gets the queue-allocation gate, as Volcano's webhook
  /// adds it.
  void set_queue_admission_gates(bool on) { queue_admission_gates_ = on; }

  /// Answers `request` if `path` is a Kubernetes API path (discovery or a
  /// resource); nullopt otherwise. Never throws: errors are Status answers.
  std::optional<http::Reply> handle(const http::Request& request, std::string_view path,
                                    std::string_view query);

  /// Removes pods whose deletion grace period has passed, as a kubelet
  /// would once their containers stopped (the local store has none).
  void reap(std::chrono::system_clock::time_point now);
  /// What a cluster with Volcano has from the start, made if missing: the
  /// system namespaces (default, kube-system, kube-public, kube-node-lease)
  /// and the queues Volcano's scheduler creates, `root` (never reclaimed)
  /// and `default`, weight 1, open.
  void create_builtin_objects();
  /// Namespace `name` made, unless it exists or is empty, as kube-apiserver's
  /// NamespaceAutoProvision admission makes it (the objects endpoint and
  /// every namespaced create go through it).
  void provision_namespace(const std::string& name);

  /// Writes answered since the last call (for the store-writes metric).
  size_t take_writes() { return std::exchange(writes_, 0); }

 private:
  /// handle() without the warnings.
  std::optional<http::Reply> respond(const http::Request& request, std::string_view path,
                                     std::string_view query);
  http::Reply dispatch(const http::Request& request, const api::ResourcePath& at,
                       std::string_view query);
  http::Reply list(const http::Request& request, const api::ResourcePath& at,
                   std::string_view query);
  http::Reply watch(const http::Request& request, const api::ResourcePath& at,
                    std::string_view query);
  http::Reply create(const http::Request& request, const api::ResourcePath& at,
                     std::string_view query);
  http::Reply update(const http::Request& request, const api::ResourcePath& at,
                     std::string_view query);
  http::Reply patch(const http::Request& request, const api::ResourcePath& at,
                    std::string_view query);
  /// Server-side apply (PATCH as application/apply-patch+yaml): creates
  /// the object if absent.
  http::Reply apply(const http::Request& request, const api::ResourcePath& at,
                    std::string_view query);
  /// The one object of the body of a create or update (`options`:
  /// "CreateOptions", "UpdateOptions"), its fields checked as the
  /// request's fieldValidation says; the warnings kept for the answer.
  nlohmann::json checked_body(const http::Request& request, const api::Resource& r,
                              std::string_view query, std::string_view options);
  /// Creates `object` (read, checked and with its managedFields) in
  /// `path_namespace`, as a POST does.
  http::Reply create_object(const http::Request& request, const api::Resource& r,
                            nlohmann::json object, const std::string& path_namespace);
  http::Reply remove(const http::Request& request, const api::ResourcePath& at,
                     std::string_view query);
  http::Reply bind(const http::Request& request, const api::ResourcePath& at);
  http::Reply evict(const http::Request& request, const api::ResourcePath& at);

  /// Stores `object` (already prepared) if `pre` holds; the stored object
  /// stamped with its version. Validates scheduled kinds by decoding them.
  WatchHub::Served write(const api::Resource& r, nlohmann::json object,
                         const store::Precondition& pre);
  /// What write() answers for a dry run: `pre` checked against the store,
  /// the object served as it would be, nothing stored or sent to watchers.
  WatchHub::Served dry_write(const api::Resource& r, const std::string& key, nlohmann::json object,
                             const store::Precondition& pre);
  /// Deletes now, or marks a bound pod terminating for its grace period.
  nlohmann::json delete_object(const api::Resource& r, const std::string& key,
                               const nlohmann::json& options);

  /// Creates the PodGroup a new `pod` that names none gets (Volcano's
  /// podgroup controller; see pod_group_controller.h), annotating the pod.
  void create_implicit_group(nlohmann::json& pod);
  /// Stores a Volcano Job and creates its PodGroup and Pods, owned by it.
  http::Reply create_job(const http::Request& request, nlohmann::json job);
  /// Removes the PodGroup a removed `pod` owned, if any.
  void remove_owned_group(const nlohmann::json& pod);

  /// Remembers a pod marked for deletion, until its grace period ends.
  void note_terminating(const std::string& key, const nlohmann::json& pod);

  store::ObjectStore& store_;
  WatchHub& watchers_;
  WrittenObjects& written_;
  schema::FieldValidation field_validation_;
  std::string write_token_;
  // The Warning headers of the request being answered.
  std::vector<std::string> warnings_;
  api::ObjectMeta meta_;
  // The request being answered asked for dryRun=All: validated and
  // answered as if done, nothing stored, noted for the cache or watched.
  bool dry_run_ = false;
  bool queue_admission_gates_ = false;
  size_t writes_ = 0;
  // Pods marked terminating through this API, by key, with when to remove
  // them: reaping looks at these, never at every pod.
  std::map<std::string, std::chrono::system_clock::time_point> terminating_;
  bool scanned_ = false;
};

}  // namespace scoria::serve
