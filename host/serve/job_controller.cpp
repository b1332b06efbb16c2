#include "serve/job_controller.h"

#include "decode/field_reader.h"
#include "decode/volcano_job.h"

namespace scoria::serve {

namespace {

using nlohmann::json;

bool owned_by(const json& object, const std::string& uid) {
  const json& meta = object.value("metadata", json::object());
  const json owners = meta.value("ownerReferences", json::array());
  if (!owners.is_array()) return false;
  for (const json& owner : owners)
    if (owner.is_object() && owner.value("kind", "") == "Job" && owner.value("uid", "") == uid)
      return true;
  return false;
}

}  // namespace

std::vector<json> job_objects(const json& job, store::ObjectStore& store, std::string_view origin,
                              int document) {
  const auto priority_of = [&](const std::string& name) -> int32_t {
    const auto stored = store.get("PriorityClass", name);
    if (!stored) return 0;
    const json pc = json::parse(stored->json, nullptr, false);
    const json value = pc.is_object() ? pc.value("value", json()) : json();
    return value.is_number_integer() ? value.get<int32_t>() : 0;
  };
  const decode::FieldReader r(origin, document);
  return decode::expand_volcano_job(r, job, input::FieldPath(), priority_of);
}

std::vector<std::pair<std::string, std::string>> owned_by_job(const json& job,
                                                              store::ObjectStore& store) {
  const json& meta = job.value("metadata", json::object());
  const std::string uid = meta.value("uid", "");
  const std::string ns = meta.value("namespace", "default");
  std::vector<std::pair<std::string, std::string>> out;
  if (uid.empty()) return out;
  for (const char* kind : {"PodGroup", "Pod"})
    for (const store::StoredObject& o : store.list(kind)) {
      if (!o.key.starts_with(ns + "/")) continue;
      // Only what names the job is parsed; the rest is skipped by a find.
      if (o.json.find(uid) == std::string::npos) continue;
      if (owned_by(json::parse(o.json, nullptr, false), uid)) out.emplace_back(kind, o.key);
    }
  return out;
}

}  // namespace scoria::serve
