// metadata.managedFields, as kube-apiserver keeps it: one entry per field
// manager and operation (Apply, or Update by apiVersion), each with the
// set of fields it owns (FieldsV1) and when it last changed them; and the
// bookkeeping of an Update (a create, replace or patch), which gives its
// manager what it changed and takes from the others what it removed.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/field_set.h"
#include "schema/field_schema.h"

namespace scoria::api {

struct ManagerEntry {
  std::string manager;
  std::string operation;  // "Apply" or "Update"
  std::string api_version;
  std::string time;  // RFC 3339, or empty
  std::string subresource;
  FieldSet fields;

  /// Whether `other` is the same manager: an applier by its name and
  /// subresource, an updater by those and its apiVersion (the API server's
  /// manager identifier).
  bool same_manager(const ManagerEntry& other) const;
  /// As a conflict names it: `"kubectl-edit" using v1`, `"kubectl"`,
  /// `"x" with subresource "status" using v1`.
  std::string describe() const;
};

class ManagedFields {
 public:
  /// The entries of `object`'s metadata.managedFields; nullopt when they
  /// cannot be read (the API server then starts afresh).
  static std::optional<ManagedFields> of(const nlohmann::json& object);

  std::vector<ManagerEntry>& entries() { return entries_; }
  const std::vector<ManagerEntry>& entries() const { return entries_; }
  bool empty() const { return entries_.empty(); }
  /// The entry of `who`'s manager, or nullptr.
  ManagerEntry* find(const ManagerEntry& who);

  /// Written into `object`'s metadata, in the API server's order (Apply
  /// before Update, then by time, manager, apiVersion); entries that own
  /// nothing dropped, and metadata.managedFields removed when none is left.
  void write_to(nlohmann::json& object);

 private:
  std::vector<ManagerEntry> entries_;
};

/// `set` without what the API server never tracks: apiVersion, kind, and
/// metadata's name, namespace, uid, resourceVersion, generation,
/// creationTimestamp, selfLink and managedFields.
FieldSet strip_untracked(const FieldSet& set);

/// The fields a request may not own: a status subresource's writer owns
/// only status, the main resource's writer never status where the kind has
/// a status subresource.
FieldSet reset_fields(bool has_status_subresource, std::string_view subresource);

/// What an Update request names its manager when it names none: the
/// User-Agent up to its first "/", printable characters only, at most 128
/// (as kube-apiserver derives it).
std::string default_manager(std::string_view user_agent);

/// Who writes, and how.
struct Writer {
  std::string manager;
  std::string api_version;
  std::string subresource;
  std::string time;
  bool has_status_subresource = false;
};

/// Records an Update by `writer` into `next`'s metadata.managedFields:
/// `previous` is the object before (nullptr for a create). The manager gets
/// the fields it added or changed, every manager loses those it removed and
/// those it changed are taken from the others. Entries written in `next`
/// win over `previous`'s (a client may reset them). Never fails: fields
/// that cannot be tracked leave the object without managedFields, as the
/// API server does.
void record_update(nlohmann::json& next, const nlohmann::json* previous, const schema::Type* type,
                   const Writer& writer);

/// The zero object the API server compares a created object against: its
/// apiVersion and kind, and (for the built-in kinds, whose Go types always
/// have them) empty metadata, spec and status.
nlohmann::json empty_object(const nlohmann::json& object, const schema::Type* type);

}  // namespace scoria::api
