#include "cache/equivalence_key.h"

#include <array>
#include <nlohmann/json.hpp>
#include <string_view>

namespace scoria::cache {

namespace {

constexpr std::array<std::string_view, 7> kIdentity = {"name",
                                                       "generateName",
                                                       "uid",
                                                       "resourceVersion",
                                                       "creationTimestamp",
                                                       "ownerReferences",
                                                       "managedFields"};
constexpr std::string_view kTaskIndex = "volcano.sh/task-index";  // label and annotation
constexpr std::array<std::string_view, 3> kAnnotations = {
    "scheduling.k8s.io/group-name", "scheduling.volcano.sh/group-name", kTaskIndex};
constexpr std::array<std::string_view, 1> kLabels = {kTaskIndex};
constexpr std::array<std::string_view, 3> kPlacement = {"nodeName", "hostname", "subdomain"};

void erase_keys(nlohmann::json& object, auto keys) {
  if (!object.is_object()) return;
  for (std::string_view k : keys) object.erase(std::string(k));
}

}  // namespace

std::string equivalence_key(const model::Pod& pod) {
  if (pod.json.empty()) return {};
  nlohmann::json j = nlohmann::json::parse(pod.json, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return {};
  j.erase("status");
  if (auto m = j.find("metadata"); m != j.end() && m->is_object()) {
    erase_keys(*m, kIdentity);
    if (auto a = m->find("annotations"); a != m->end()) erase_keys(*a, kAnnotations);
    if (auto l = m->find("labels"); l != m->end()) erase_keys(*l, kLabels);
  }
  if (auto s = j.find("spec"); s != j.end()) erase_keys(*s, kPlacement);
  return j.dump();
}

}  // namespace scoria::cache
