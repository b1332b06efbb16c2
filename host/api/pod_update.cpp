#include "api/pod_update.h"

#include <algorithm>
#include <string>

#include "api/status.h"

namespace scoria::api {

namespace {

using nlohmann::json;

constexpr const char* kForbidden =
    "Forbidden: pod updates may not change fields other than `spec.containers[*].image`,"
    "`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only "
    "additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set "
    "to 1 if it was previously negative)";

const json& member(const json& object, const char* key) {
  static const json kNull;
  if (!object.is_object()) return kNull;
  const auto it = object.find(key);
  return it == object.end() ? kNull : *it;
}

// The images of `from`'s containers of list `key`, where `into` has as many.
void take_images(json& into, const json& from, const char* key) {
  const json& theirs = member(from, key);
  if (!into.is_object() || !into.contains(key)) return;
  json& ours = into[key];
  if (!ours.is_array() || !theirs.is_array() || ours.size() != theirs.size()) return;
  for (size_t i = 0; i < ours.size(); ++i)
    if (ours[i].is_object() && theirs[i].is_object() && theirs[i].contains("image"))
      ours[i]["image"] = theirs[i]["image"];
}

bool contains_all(const json& list, const json& items) {
  if (items.is_null()) return true;
  if (!list.is_array() || !items.is_array()) return false;
  return std::all_of(items.begin(), items.end(), [&](const json& item) {
    return std::find(list.begin(), list.end(), item) != list.end();
  });
}

}  // namespace

void check_pod_update(const json& next, const json& previous) {
  const json& old_spec = member(previous, "spec");
  json spec = member(next, "spec");
  const std::string name = member(member(previous, "metadata"), "name").is_string()
                               ? member(member(previous, "metadata"), "name").get<std::string>()
                               : std::string();
  if (spec.is_object() && old_spec.is_object()) {
    // What may change is set back to what it was; anything else left
    // different is refused.
    take_images(spec, old_spec, "containers");
    take_images(spec, old_spec, "initContainers");
    if (old_spec.contains("activeDeadlineSeconds") || spec.contains("activeDeadlineSeconds")) {
      const json& was = member(old_spec, "activeDeadlineSeconds");
      const json& now = member(spec, "activeDeadlineSeconds");
      // Set, or shortened; never removed nor lengthened.
      if (!now.is_null() && (was.is_null() || (now.is_number() && was.is_number() &&
                                               now.get<double>() <= was.get<double>())))
        spec["activeDeadlineSeconds"] = was;
      if (spec["activeDeadlineSeconds"].is_null()) spec.erase("activeDeadlineSeconds");
    }
    if (contains_all(member(spec, "tolerations"), member(old_spec, "tolerations"))) {
      if (old_spec.contains("tolerations"))
        spec["tolerations"] = old_spec["tolerations"];
      else
        spec.erase("tolerations");
    }
    const json& gates = member(spec, "schedulingGates");
    if (!gates.is_null() && !contains_all(member(old_spec, "schedulingGates"), gates))
      throw invalid("", "Pod", name,
                    {{"FieldValueForbidden",
                      "Forbidden: only deletion is allowed, but found new "
                      "scheduling gates",
                      "spec.schedulingGates"}});
    if (old_spec.contains("schedulingGates")) spec["schedulingGates"] = old_spec["schedulingGates"];
  }
  if (spec != old_spec)
    throw invalid("", "Pod", name, {{"FieldValueForbidden", kForbidden, "spec"}});
}

}  // namespace scoria::api
