#include "api/server_side_apply.h"

#include <algorithm>
#include <tuple>
#include <vector>

#include "api/structured_merge.h"

namespace scoria::api {

namespace {

using nlohmann::json;

constexpr std::string_view kLastApplied = "kubectl.kubernetes.io/last-applied-configuration";

ApiError invalid_patch_options(std::string_view field, std::string_view reason,
                               const std::string& message) {
  json details = {{"group", "meta.k8s.io"},
                  {"kind", "PatchOptions"},
                  {"causes", json::array({{{"reason", std::string(reason)},
                                           {"message", message},
                                           {"field", std::string(field)}}})}};
  return ApiError(
      422, "Invalid",
      "PatchOptions.meta.k8s.io \"\" is invalid: " + std::string(field) + ": " + message,
      std::move(details));
}

json without_managed(const json& object) {
  json out = object;
  if (const auto meta = out.find("metadata"); meta != out.end() && meta->is_object())
    meta->erase("managedFields");
  return out;
}

struct Conflict {
  const ManagerEntry* owner;
  FieldPath path;
};

/// 409 as kube-apiserver words it: one conflict on one line, several
/// grouped by manager (managers in order), each cause naming its field.
ApiError conflict_error(std::vector<Conflict> conflicts) {
  std::stable_sort(conflicts.begin(), conflicts.end(), [](const Conflict& a, const Conflict& b) {
    return std::tie(a.owner->manager, a.owner->operation, a.owner->api_version,
                    a.owner->subresource) < std::tie(b.owner->manager, b.owner->operation,
                                                     b.owner->api_version, b.owner->subresource);
  });
  json causes = json::array();
  for (const Conflict& c : conflicts)
    causes.push_back({{"type", "FieldManagerConflict"},
                      {"message", "conflict with " + c.owner->describe()},
                      {"field", path_string(c.path)}});
  std::string message;
  if (conflicts.size() == 1) {
    message = "Apply failed with 1 conflict: conflict with " + conflicts[0].owner->describe() +
              ": " + path_string(conflicts[0].path);
  } else {
    message = "Apply failed with " + std::to_string(conflicts.size()) + " conflicts: ";
    const ManagerEntry* last = nullptr;
    bool first = true;
    for (const Conflict& c : conflicts) {
      if (last == nullptr || !c.owner->same_manager(*last)) {
        if (!std::exchange(first, false)) message += "\n";
        message += "conflicts with " + c.owner->describe() + ":";
        last = c.owner;
      }
      message += "\n- " + path_string(c.path);
    }
  }
  return ApiError(409, "Conflict", message, json{{"causes", std::move(causes)}});
}

/// The fields `kubectl apply` (client-side) last applied that still hold
/// their applied values: what the "kubectl" manager may take over without
/// a conflict, as the API server lets an object move from client-side to
/// server-side apply.
FieldSet last_applied_fields(const json& live, const schema::Type* type,
                             std::string_view api_version) {
  const json& meta = live.contains("metadata") ? live.at("metadata") : json();
  if (!meta.is_object() || !meta.contains("annotations") || !meta["annotations"].is_object())
    return {};
  const json& annotations = meta["annotations"];
  const auto text = annotations.find(std::string(kLastApplied));
  if (text == annotations.end() || !text->is_string()) return {};
  const json applied = json::parse(text->get<std::string>(), nullptr, false);
  if (!applied.is_object() || applied.value("apiVersion", "") != api_version) return {};
  const Comparison c = compare(&applied, &live, type);
  return fields_of(applied, type).difference(c.modified).difference(c.added).difference(c.removed);
}

}  // namespace

void check_patch_options(bool apply, std::string_view field_manager, bool force_given) {
  if (apply && field_manager.empty())
    throw invalid_patch_options("fieldManager", "FieldValueRequired",
                                "Required value: is required for apply patch");
  if (!apply && force_given)
    throw invalid_patch_options("force", "FieldValueForbidden",
                                "Forbidden: may not be specified for non-apply patch");
  if (field_manager.size() > 128)
    throw invalid_patch_options("fieldManager", "FieldValueTooLong",
                                "Too long: may not be more than 128 bytes");
}

void check_applied_config(const json& config, std::string_view api_version, std::string_view kind) {
  if (!config.is_object()) throw bad_request("the applied configuration must be an object");
  const std::string given_version = config.value("apiVersion", "");
  const std::string given_kind = config.value("kind", "");
  if (given_kind.empty())
    throw bad_request("Object 'Kind' is missing in the applied configuration");
  if (given_version.empty())
    throw bad_request("Object 'apiVersion' is missing in the applied configuration");
  if (given_version != api_version || given_kind != kind)
    throw bad_request("the API version in the data (" + given_version + ", Kind=" + given_kind +
                      ") does not match the expected API version (" + std::string(api_version) +
                      ", Kind=" + std::string(kind) + ")");
  if (const auto meta = config.find("metadata"); meta != config.end() && meta->is_object())
    if (const auto m = meta->find("managedFields"); m != meta->end() && !m->is_null())
      throw bad_request("metadata.managedFields must be nil");
}

json server_side_apply(const json* live, const json& config, const schema::Type* type,
                       const ApplyRequest& request) {
  const Writer& writer = request.writer;
  ManagedFields managed =
      live != nullptr ? ManagedFields::of(*live).value_or(ManagedFields()) : ManagedFields();
  const json before = live != nullptr ? without_managed(*live) : empty_object(config, type);
  const FieldSet reset = reset_fields(writer.has_status_subresource, writer.subresource);
  try {
    // An object no one manages yet is first given, whole, to a manager of
    // its own: what an applier changes of it is then a conflict.
    if (live != nullptr && managed.empty()) {
      const json zero = empty_object(before, type);
      const Comparison c = compare(&zero, &before, type);
      ManagerEntry first{
          "before-first-apply",
          "Update",
          writer.api_version,
          writer.time,
          writer.subresource,
          strip_untracked(c.added.union_with(c.modified).recursive_difference(reset))};
      managed.entries().push_back(std::move(first));
    }
    // A new object is the configuration alone (not the zero object it is
    // compared with, whose empty spec and status it need not have).
    json merged = merge(live != nullptr ? before : json::object(), config, type);
    const FieldSet applied = fields_of(config, type).recursive_difference(reset);
    const ManagerEntry me{writer.manager,     "Apply",   writer.api_version, writer.time,
                          writer.subresource, FieldSet()};
    const ManagerEntry* previous = managed.find(me);
    // What the applier applied before and applies no more goes, unless
    // someone still owns it.
    if (previous != nullptr && !previous->fields.empty()) {
      FieldSet owned = applied;
      for (const ManagerEntry& e : managed.entries())
        if (!e.same_manager(me)) owned = owned.union_with(e.fields);
      const FieldSet gone =
          strip_untracked(ensure_named_fields_are_members(previous->fields, type)
                              .difference(ensure_named_fields_are_members(owned, type)));
      if (!gone.empty()) merged = remove_items(merged, gone, type);
    }
    const Comparison c = compare(&before, &merged, type);
    const FieldSet changed = c.modified.union_with(c.added).recursive_difference(reset);
    const FieldSet removed = c.removed.recursive_difference(reset);
    std::vector<Conflict> conflicts;
    for (const ManagerEntry& e : managed.entries()) {
      if (e.same_manager(me)) continue;
      e.fields.intersection(changed).for_each([&](std::span<const PathElement> p) {
        conflicts.push_back({&e, FieldPath(p.begin(), p.end())});
      });
    }
    if (!conflicts.empty() && !request.force && writer.manager == "kubectl" && live != nullptr) {
      const FieldSet allowed = last_applied_fields(before, type, writer.api_version);
      std::erase_if(conflicts, [&](const Conflict& x) { return allowed.has(x.path); });
    }
    if (!conflicts.empty() && !request.force) throw conflict_error(std::move(conflicts));
    for (ManagerEntry& e : managed.entries())
      if (!e.same_manager(me))
        e.fields = strip_untracked(e.fields.difference(changed).difference(removed));
    const bool changed_object = merged != before;
    if (ManagerEntry* mine = managed.find(me)) {
      mine->fields = strip_untracked(applied);
      if (changed_object) mine->time = writer.time;
    } else {
      ManagerEntry entry = me;
      entry.fields = strip_untracked(applied);
      managed.entries().push_back(std::move(entry));
    }
    managed.write_to(merged);
    return merged;
  } catch (const StructureError& e) {
    throw bad_request("failed to create typed patch object (" + writer.api_version +
                      ", Kind=" + config.value("kind", "") + "): " + e.what());
  }
}

}  // namespace scoria::api
