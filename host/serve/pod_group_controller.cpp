#include "serve/pod_group_controller.h"

#include <algorithm>
#include <variant>
#include <vector>

#include "cache/cluster_cache.h"
#include "decode/object_decoder.h"
#include "model/implicit_pod_group.h"
#include "model/quantity.h"

namespace scoria::serve {

namespace {

using nlohmann::json;

std::string text_at(const json& object, const char* field) {
  const auto it = object.find(field);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

const json& metadata_of(const json& object) {
  static const json kEmpty = json::object();
  const auto it = object.find("metadata");
  return it != object.end() && it->is_object() ? *it : kEmpty;
}

std::string annotation(const json& object, std::string_view key) {
  const json& meta = metadata_of(object);
  const auto a = meta.find("annotations");
  if (a == meta.end() || !a->is_object()) return {};
  return text_at(*a, std::string(key).c_str());
}

bool for_this_scheduler(const model::Pod& pod) {
  const auto& names = cache::ClusterCache::kDefaultSchedulerNames;
  return pod.scheduler_name.empty() ||
         std::find(names.begin(), names.end(), pod.scheduler_name) != names.end();
}

}  // namespace

std::optional<json> implicit_pod_group(json& pod) {
  if (!annotation(pod, kGroupAnnotation).empty()) return std::nullopt;
  const std::string uid = text_at(metadata_of(pod), "uid");
  if (uid.empty()) return std::nullopt;
  std::vector<decode::Decoded> decoded;
  try {
    decode::decode_document(pod, "Pod", 1, decoded);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (decoded.size() != 1 || !std::holds_alternative<model::Pod>(decoded[0].object))
    return std::nullopt;
  const model::Pod& p = std::get<model::Pod>(decoded[0].object);
  if (!for_this_scheduler(p) || !p.node_name.empty()) return std::nullopt;
  // A pod of a scheduling.k8s.io PodGroup (spec.schedulingGroup) has its group.
  if (p.native_group) return std::nullopt;

  // As the controller's buildPodGroupFromPod: the group model the cache
  // would have made up, written out.
  const model::PodGroup g = model::implicit_pod_group(p, "podgroup-" + uid);
  json min_resources = json::object();
  for (const auto& [name, value] : g.min_resources)
    if (name != "pods" && value > 0) min_resources[name] = model::format_quantity(name, value);
  json spec = {{"minMember", 1}, {"minResources", std::move(min_resources)}};
  if (const std::string queue = annotation(pod, "scheduling.volcano.sh/queue-name"); !queue.empty())
    spec["queue"] = queue;
  if (!p.priority_class_name.empty()) spec["priorityClassName"] = p.priority_class_name;
  json group = {{"apiVersion", "scheduling.volcano.sh/v1beta1"},
                {"kind", "PodGroup"},
                {"metadata",
                 {{"name", g.name},
                  {"namespace", p.namespace_},
                  {"ownerReferences", json::array({{{"apiVersion", "v1"},
                                                    {"kind", "Pod"},
                                                    {"name", p.name},
                                                    {"uid", uid},
                                                    {"controller", true},
                                                    {"blockOwnerDeletion", true}}})}}},
                {"spec", std::move(spec)},
                {"status", {{"phase", "Pending"}}}};
  if (!g.annotations.empty()) group["metadata"]["annotations"] = g.annotations;

  json& meta = pod["metadata"];
  if (!meta["annotations"].is_object()) meta["annotations"] = json::object();
  meta["annotations"][std::string(kGroupAnnotation)] = g.name;
  return group;
}

std::optional<std::string> owned_pod_group(const json& pod, store::ObjectStore& store) {
  const std::string name = annotation(pod, kGroupAnnotation);
  const json& meta = metadata_of(pod);
  const std::string uid = text_at(meta, "uid");
  if (name.empty() || uid.empty()) return std::nullopt;
  const std::string key = text_at(meta, "namespace") + "/" + name;
  const auto stored = store.get("PodGroup", key);
  if (!stored) return std::nullopt;
  const json group = json::parse(stored->json, nullptr, false);
  const json& owners = metadata_of(group).value("ownerReferences", json::array());
  if (!owners.is_array()) return std::nullopt;
  for (const json& owner : owners)
    if (owner.is_object() && text_at(owner, "kind") == "Pod" && text_at(owner, "uid") == uid)
      return key;
  return std::nullopt;
}

}  // namespace scoria::serve
