// What a hostile or broken API server sends the Kubernetes source, read as
// its reflector reads it: the first byte picks the kind (cache::Kind) and,
// with its high bit, a watch event line instead of a list page; the rest
// is the body. The nesting bound, the parse, each item's decoding into the
// cache's changes, and the cache taking them. A refusal is an InputError
// (or a body the source would refuse as not a list); a crash, a sanitizer
// report or any other exception is a finding.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "api/resources.h"
#include "cache/cluster_cache.h"
#include "cache/object_change.h"
#include "input/json_reader.h"
#include "kube/api_client.h"
#include "kube/decode_change.h"
#include "model/error.h"

namespace {

using nlohmann::json;

// The kinds the source lists are the cache's, in cache::Kind's order,
// which fuzz/seeds.py writes its seeds in.
constexpr size_t kKinds = std::variant_size_v<scoria::cache::Object>;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace scoria;
  static int runs = 0;
  static auto taken = std::make_unique<cache::ClusterCache>();
  // What earlier inputs stored stays bounded.
  if (++runs % 500 == 0) taken = std::make_unique<cache::ClusterCache>();
  if (size == 0) return 0;
  const bool watch = (data[0] & 0x80) != 0;
  const auto kind = static_cast<cache::Kind>((data[0] & 0x7F) % kKinds);
  const api::Resource* resource = api::find_kind(cache::kind_name(kind));
  if (resource == nullptr) return 0;
  const std::string_view body(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (input::json_nesting(body) > kube::kMaxNesting) return 0;  // refused unparsed
  json answer = kube::parse_answer(body);
  std::vector<json*> objects;
  if (watch) {
    if (!answer.is_object() || !answer.contains("object")) return 0;
    objects.push_back(&answer["object"]);
  } else {
    if (!answer.is_object() || !answer.contains("items") || !answer["items"].is_array()) return 0;
    for (json& item : answer["items"]) objects.push_back(&item);
  }
  std::vector<cache::ObjectChange> changes;
  for (json* object : objects) {
    if (!object->is_object()) continue;
    (void)kube::object_key(*object, *resource);
    try {
      kube::decode_change(*object, *resource, changes);
    } catch (const InputError&) {
      // Logged once and skipped by the source.
    }
  }
  taken->apply_changes(changes);
  return 0;
}
