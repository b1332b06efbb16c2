#include "cache/claim_status.h"

namespace scoria::cache {

namespace {

using nlohmann::json;

const char* op_name(model::SelectorOp op) {
  switch (op) {
    case model::SelectorOp::In:
    case model::SelectorOp::Equal:
      return "In";
    case model::SelectorOp::NotIn:
      return "NotIn";
    case model::SelectorOp::Exists:
      return "Exists";
    case model::SelectorOp::DoesNotExist:
      return "DoesNotExist";
    case model::SelectorOp::Gt:
      return "Gt";
    case model::SelectorOp::Lt:
      return "Lt";
  }
  return "In";
}

}  // namespace

json node_selector_json(const std::vector<model::NodeSelectorTerm>& terms) {
  json out = json::array();
  for (const model::NodeSelectorTerm& t : terms) {
    json term = json::object();
    for (const model::SelectorRequirement& r : t.requirements) {
      json req = {{"key", r.key}, {"operator", op_name(r.op)}};
      if (!r.values.empty()) req["values"] = r.values;
      term[r.is_field ? "matchFields" : "matchExpressions"].push_back(std::move(req));
    }
    out.push_back(std::move(term));
  }
  return {{"nodeSelectorTerms", std::move(out)}};
}

json allocation_json(const model::DeviceAllocation& allocation) {
  json results = json::array();
  for (const model::DeviceResult& r : allocation.results) {
    json one = {
        {"request", r.request}, {"driver", r.driver}, {"pool", r.pool}, {"device", r.device}};
    if (r.admin_access) one["adminAccess"] = true;
    results.push_back(std::move(one));
  }
  json out = {{"devices", {{"results", std::move(results)}}}};
  if (allocation.node_selector) out["nodeSelector"] = node_selector_json(*allocation.node_selector);
  return out;
}

json consumer_json(const model::ClaimConsumer& c) {
  json r = {{"resource", c.resource}, {"name", c.name}};
  if (!c.api_group.empty()) r["apiGroup"] = c.api_group;
  if (!c.uid.empty()) r["uid"] = c.uid;
  return r;
}

}  // namespace scoria::cache
