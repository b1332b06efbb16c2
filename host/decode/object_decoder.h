// One decoder per kind, behind one entry point: a document's tree (from an
// object file, the store or an API body) becomes model objects. Every
// source decodes through here, so an object means the same wherever it
// comes from and is refused with the same message.
#pragma once

#include <nlohmann/json.hpp>
#include <span>
#include <string_view>
#include <variant>
#include <vector>

#include "input/node_tree.h"
#include "model/cluster_objects.h"

namespace scoria::decode {

using Object = model::Object;

/// One object decoded, with where it came from.
struct Decoded {
  Object object;
  int doc = 0;
  int item = -1;               // index in a List's items, else -1
  bool never_preempt = false;  // PriorityClass preemptionPolicy: Never
};

/// A kind Scoria reads.
struct KindInfo {
  std::string_view kind;
  std::string_view api_version;
  bool namespaced;
};
/// The kinds of the Object variant, in its order.
std::span<const KindInfo> kinds();
/// `kind` at `api_version` (any version when empty: Volcano's PodGroup
/// before Kubernetes' own), among those and the Workload API's kinds.
const KindInfo* find_kind(std::string_view kind, std::string_view api_version = {});

/// Decodes a document (one object, or a List: kind List, PodList, ...)
/// into `out`. Throws InputError naming `origin`, document `number`, the
/// object and the field. `text`, when given, is the document's own JSON
/// text (the store's entries): a pod keeps it as its JSON for plugins
/// instead of printing the object again.
void decode_document(const input::Node& doc, std::string_view origin, int number,
                     std::vector<Decoded>& out, std::string_view text = {});
void decode_document(const nlohmann::json& doc, std::string_view origin, int number,
                     std::vector<Decoded>& out, std::string_view text = {});

}  // namespace scoria::decode
