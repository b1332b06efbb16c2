// Server-set metadata, as the API server keeps it: uid, creationTimestamp,
// generation (bumped when the spec changes) and resourceVersion (the store's
// version of the object's last change, stamped when the object is served,
// never trusted from a client).
#pragma once

#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <random>
#include <string>

#include "api/resources.h"

namespace scoria::api {

class ObjectMeta {
 public:
  ObjectMeta();

  /// A new object: apiVersion and kind set, the namespace filled in (or
  /// checked against the path's), generateName expanded, uid,
  /// creationTimestamp and generation 1 set, resourceVersion removed.
  /// Throws ApiError for a namespace that disagrees with the path's.
  void on_create(nlohmann::json& object, const Resource& r, const std::string& path_namespace);
  /// A replacement of `old`: identity and creation kept from `old`,
  /// generation bumped when the spec changed, resourceVersion removed.
  static void on_update(nlohmann::json& object, const nlohmann::json& old, const Resource& r);

  /// metadata.resourceVersion set to `version`.
  static void stamp(nlohmann::json& object, int64_t version);

  /// An object's text before its version is known: `before` + the version
  /// + `after` is, byte for byte, what stamp() and a compact dump (invalid
  /// UTF-8 replaced) make of it. Lets a thread that drafts a write make the
  /// served text, and the writer fill in the version it gets.
  struct VersionSlot {
    std::string before;
    std::string after;
    std::string fill(int64_t version) const;
  };
  /// `object` so (std::invalid_argument if it has no metadata object; a
  /// resourceVersion it has is left out).
  static VersionSlot version_slot(const nlohmann::json& object);
  /// metadata.resourceVersion as a number: nullopt when absent; throws
  /// ApiError (400) when it is not a version.
  static std::optional<int64_t> requested_version(const nlohmann::json& object);

  /// `t` as RFC 3339 (seconds, UTC), as creationTimestamp and
  /// deletionTimestamp are written.
  static std::string rfc3339(std::chrono::system_clock::time_point t);

  /// A new metadata.uid (a version-4 UUID).
  std::string uid();

 private:
  std::mt19937_64 random_;
};

}  // namespace scoria::api
