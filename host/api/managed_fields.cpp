#include "api/managed_fields.h"

#include <algorithm>
#include <stdexcept>
#include <tuple>

#include "api/structured_merge.h"

namespace scoria::api {

namespace {

using nlohmann::json;

FieldSet paths(std::initializer_list<std::initializer_list<std::string_view>> list) {
  FieldSet out;
  for (const auto& names : list) {
    FieldPath path;
    for (const std::string_view n : names) path.push_back(field_element(n));
    out.insert(path);
  }
  return out;
}

/// `object` without metadata.managedFields.
json without_managed_fields(const json& object) {
  json out = object;
  if (const auto meta = out.find("metadata"); meta != out.end() && meta->is_object())
    meta->erase("managedFields");
  return out;
}

bool has_entries(const json& object) {
  const auto meta = object.find("metadata");
  if (meta == object.end() || !meta->is_object()) return false;
  const auto m = meta->find("managedFields");
  return m != meta->end() && m->is_array() && !m->empty();
}

}  // namespace

bool ManagerEntry::same_manager(const ManagerEntry& other) const {
  if (manager != other.manager || operation != other.operation || subresource != other.subresource)
    return false;
  return operation == "Apply" || api_version == other.api_version;
}

std::string ManagerEntry::describe() const {
  std::string out = json(manager).dump();
  if (!subresource.empty()) out += " with subresource " + json(subresource).dump();
  if (operation == "Update") out += " using " + api_version;
  return out;
}

std::optional<ManagedFields> ManagedFields::of(const json& object) {
  ManagedFields out;
  const auto meta = object.find("metadata");
  if (meta == object.end() || !meta->is_object()) return out;
  const auto list = meta->find("managedFields");
  if (list == meta->end() || list->is_null()) return out;
  if (!list->is_array()) return std::nullopt;
  try {
    for (const json& e : *list) {
      if (!e.is_object()) return std::nullopt;
      ManagerEntry entry;
      entry.manager = e.value("manager", "");
      entry.operation = e.value("operation", "");
      entry.api_version = e.value("apiVersion", "");
      entry.time = e.value("time", "");
      entry.subresource = e.value("subresource", "");
      if (entry.operation != "Apply" && entry.operation != "Update") return std::nullopt;
      if (e.value("fieldsType", "FieldsV1") != "FieldsV1") return std::nullopt;
      if (const auto f = e.find("fieldsV1"); f != e.end() && !f->is_null())
        entry.fields = FieldSet::from_fields_v1(*f);
      out.entries_.push_back(std::move(entry));
    }
  } catch (const std::exception&) {
    return std::nullopt;
  }
  return out;
}

ManagerEntry* ManagedFields::find(const ManagerEntry& who) {
  for (ManagerEntry& e : entries_)
    if (e.same_manager(who)) return &e;
  return nullptr;
}

void ManagedFields::write_to(json& object) {
  std::erase_if(entries_, [](const ManagerEntry& e) { return e.fields.empty(); });
  std::sort(entries_.begin(), entries_.end(), [](const ManagerEntry& a, const ManagerEntry& b) {
    return std::tie(a.operation, a.time, a.manager, a.api_version, a.subresource) <
           std::tie(b.operation, b.time, b.manager, b.api_version, b.subresource);
  });
  json& meta = object["metadata"];
  if (!meta.is_object()) meta = json::object();
  if (entries_.empty()) {
    meta.erase("managedFields");
    return;
  }
  json list = json::array();
  for (const ManagerEntry& e : entries_) {
    json entry = {{"manager", e.manager},
                  {"operation", e.operation},
                  {"apiVersion", e.api_version},
                  {"fieldsType", "FieldsV1"},
                  {"fieldsV1", e.fields.to_fields_v1()}};
    if (!e.time.empty()) entry["time"] = e.time;
    if (!e.subresource.empty()) entry["subresource"] = e.subresource;
    list.push_back(std::move(entry));
  }
  meta["managedFields"] = std::move(list);
}

FieldSet strip_untracked(const FieldSet& set) {
  static const FieldSet kUntracked = paths({{"apiVersion"},
                                            {"kind"},
                                            {"metadata"},
                                            {"metadata", "name"},
                                            {"metadata", "namespace"},
                                            {"metadata", "creationTimestamp"},
                                            {"metadata", "selfLink"},
                                            {"metadata", "uid"},
                                            {"metadata", "clusterName"},
                                            {"metadata", "generation"},
                                            {"metadata", "managedFields"},
                                            {"metadata", "resourceVersion"}});
  return set.difference(kUntracked);
}

FieldSet reset_fields(bool has_status_subresource, std::string_view subresource) {
  if (subresource == "status") return paths({{"spec"}});
  return has_status_subresource ? paths({{"status"}}) : FieldSet();
}

std::string default_manager(std::string_view user_agent) {
  const std::string_view name = user_agent.substr(0, user_agent.find('/'));
  std::string out;
  for (const char c : name) {
    if (out.size() >= 128) break;
    if (static_cast<unsigned char>(c) >= 0x20 && c != 0x7f) out += c;
  }
  return out;
}

json empty_object(const json& object, const schema::Type* type) {
  json out = json::object();
  for (const char* key : {"apiVersion", "kind"})
    if (object.contains(key)) out[key] = object[key];
  if (type != nullptr && schema::definition_name(*type).starts_with("io.k8s."))
    for (const char* key : {"metadata", "spec", "status"})
      if (schema::find_field(*type, key) != nullptr) out[key] = json::object();
  return out;
}

void record_update(json& next, const json* previous, const schema::Type* type,
                   const Writer& writer) {
  std::optional<ManagedFields> managed;
  const json* given = nullptr;
  if (const auto meta = next.find("metadata"); meta != next.end() && meta->is_object())
    if (const auto m = meta->find("managedFields"); m != meta->end()) given = &*m;
  if (given != nullptr && *given == json::array({json::object()})) {
    // [{}] is how a client clears them (and then, as an existing object no
    // one manages, the object is not tracked).
    managed = ManagedFields();
  } else if (has_entries(next)) {
    managed = ManagedFields::of(next);
  }
  if (!managed && previous != nullptr) managed = ManagedFields::of(*previous);
  if (!managed) managed = ManagedFields();
  // An object that exists and has no managers is not tracked until it is
  // first applied (kube-apiserver's skip-non-applied manager).
  if (managed->empty() && previous != nullptr) {
    if (const auto meta = next.find("metadata"); meta != next.end() && meta->is_object())
      meta->erase("managedFields");
    return;
  }
  try {
    const json before =
        previous != nullptr ? without_managed_fields(*previous) : empty_object(next, type);
    const json after = without_managed_fields(next);
    const Comparison c = compare(&before, &after, type);
    const FieldSet reset = reset_fields(writer.has_status_subresource, writer.subresource);
    const FieldSet changed = c.modified.union_with(c.added).recursive_difference(reset);
    const FieldSet removed = c.removed.recursive_difference(reset);
    for (ManagerEntry& e : managed->entries())
      e.fields = strip_untracked(e.fields.difference(changed).difference(removed));
    const FieldSet mine = strip_untracked(changed);
    if (!mine.empty()) {
      ManagerEntry who{writer.manager, "Update",           writer.api_version,
                       writer.time,    writer.subresource, FieldSet()};
      if (ManagerEntry* e = managed->find(who)) {
        e->fields = e->fields.union_with(mine);
        e->time = writer.time;
      } else {
        who.fields = mine;
        managed->entries().push_back(std::move(who));
      }
    }
    managed->write_to(next);
  } catch (const StructureError&) {
    // As the API server: never a failed write for its bookkeeping.
    if (const auto meta = next.find("metadata"); meta != next.end() && meta->is_object())
      meta->erase("managedFields");
  }
}

}  // namespace scoria::api
