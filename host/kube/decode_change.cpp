#include "kube/decode_change.h"

#include "decode/object_decoder.h"

namespace scoria::kube {

namespace {

const std::string& meta_text(const nlohmann::json& j, const char* field) {
  static const std::string empty;
  const auto meta = j.find("metadata");
  if (meta == j.end() || !meta->is_object()) return empty;
  const auto it = meta->find(field);
  return it != meta->end() && it->is_string() ? it->get_ref<const std::string&>() : empty;
}

}  // namespace

std::string object_key(const nlohmann::json& object, const api::Resource& resource) {
  const std::string& name = meta_text(object, "name");
  if (!resource.namespaced) return name;
  const std::string& ns = meta_text(object, "namespace");
  return (ns.empty() ? std::string("default") : ns) + "/" + name;
}

void decode_change(nlohmann::json& object, const api::Resource& resource,
                   std::vector<cache::ObjectChange>& out) {
  const auto kind = object.find("kind");
  if (kind == object.end() || !kind->is_string() || kind->get_ref<const std::string&>().empty())
    object["kind"] = std::string(resource.kind);
  const auto version = object.find("apiVersion");
  if (version == object.end() || !version->is_string() ||
      version->get_ref<const std::string&>().empty())
    object["apiVersion"] = api::api_version(resource);
  std::vector<decode::Decoded> decoded;
  decode::decode_document(object, "the API server", 1, decoded);
  for (decode::Decoded& d : decoded)
    out.push_back(cache::ObjectChange::upsert(std::move(d.object), d.never_preempt));
}

}  // namespace scoria::kube
