// The resource.k8s.io kinds' columns, as kube-apiserver's printers show
// them (pkg/printers/internalversion/printers.go): a claim's state, a
// slice's node, driver and pool, and for classes and templates their names.
#include <string>
#include <vector>

#include "api/table_columns.h"

namespace scoria::api::columns {

namespace {

using nlohmann::json;

// kube's resourceClaimState: "deleted" while it is being deleted, then
// "allocated" (and "reserved" when some consumer holds it), else "pending".
json claim_state(const json& o, Clock::time_point) {
  std::string state;
  const auto add = [&state](const char* s) {
    state += (state.empty() ? "" : ",") + std::string(s);
  };
  const bool going = !at(o, {"metadata", "deletionTimestamp"}).is_null();
  if (going) add("deleted");
  if (at(o, {"status", "allocation"}).is_null()) {
    if (!going) add("pending");
  } else {
    add("allocated");
    const json& reserved = at(o, {"status", "reservedFor"});
    if (reserved.is_array() && !reserved.empty()) add("reserved");
  }
  return state;
}

std::vector<Column> resource_claim_columns() {
  return {
      name_column(),
      {"State", "string", 0, "A summary of the current state (allocated, pending, reserved, etc.).",
       claim_state},
      age_column(),
  };
}

std::vector<Column> resource_slice_columns() {
  return {
      name_column(),
      {"Node", "string", 0, "The node which provides the resources of the slice, if one does.",
       [](const json& o, Clock::time_point) {
         return text(o, {"spec", "nodeName"}, "");
       }},
      {"Driver", "string", 0, "The DRA driver providing the capacity information.",
       [](const json& o, Clock::time_point) {
         return text(o, {"spec", "driver"}, "");
       }},
      {"Pool", "string", 0, "The pool the slice belongs to.",
       [](const json& o, Clock::time_point) {
         return text(o, {"spec", "pool", "name"}, "");
       }},
      age_column(),
  };
}

}  // namespace

std::vector<Column> device_columns(std::string_view kind) {
  if (kind == "ResourceClaim") return resource_claim_columns();
  if (kind == "ResourceSlice") return resource_slice_columns();
  if (kind == "DeviceClass" || kind == "ResourceClaimTemplate")
    return {name_column(), age_column()};
  return {};
}

}  // namespace scoria::api::columns
