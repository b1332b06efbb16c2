// The ResourceClaim writes of a bind, as kube-scheduler's DynamicResources
// PreBind makes them: for a claim the session allocated, the finalizer
// resource.kubernetes.io/delete-protection in a plain update, then the
// allocation and the pod in reservedFor in one status update; for a claim
// allocated before, the pod added to reservedFor. Each starts from the
// claim as the server has it, so a claim allocated elsewhere meanwhile, or
// one deallocated, refuses the bind instead of being written over.
#include <thread>

#include "cache/claim_status.h"
#include "http/client.h"
#include "kube/writer.h"

namespace scoria::kube {

namespace {

constexpr const char* kFinalizer = "resource.kubernetes.io/delete-protection";
// ResourceClaimReservedForMaxSize.
constexpr size_t kMaxReservations = 256;
// How long a reservation waits for the allocation another bind writes.
constexpr auto kAllocationWait = std::chrono::milliseconds(100);
constexpr int kAllocationWaits = 30;

}  // namespace

std::string Writer::bind_claims(Connection& c, const WriteOp& op) {
  for (const cycle::Outcome::ClaimAllocation& a : op.claims)
    if (std::string failed = bind_claim(c, op, a); !failed.empty()) return failed;
  return {};
}

std::string Writer::bind_claim(Connection& c, const WriteOp& op,
                               const cycle::Outcome::ClaimAllocation& a) {
  using nlohmann::json;
  const size_t slash = a.claim.find('/');
  const std::string ns = a.claim.substr(0, slash), name = a.claim.substr(slash + 1);
  const std::string pod_name = op.key.substr(op.key.find('/') + 1);
  const std::string path =
      http::path_of({"apis", "resource.k8s.io", "v1", "namespaces", ns, "resourceclaims", name});
  const auto refused = [&](const std::string& why) {
    reread(c, cache::Kind::ResourceClaim, path, a.claim);
    return "claim " + a.claim + why;
  };
  json claim;
  for (int attempt = 1;; ++attempt) {
    const Response got = call(c, "GET", path, "");
    if (got.status != 200) return refused(": " + status_message(got));
    claim = parse_answer(got.body);
    if (!claim.is_object()) return refused(": the server's answer is not an object");
    // A shared claim another bind of the session allocates: that bind runs
    // on another worker, so its write may land a little later.
    const json* st = claim.contains("status") ? &claim["status"] : nullptr;
    const bool allocated_now_there = st != nullptr && st->is_object() &&
                                     st->contains("allocation") && !(*st)["allocation"].is_null();
    if (!a.allocated_by_another || allocated_now_there || attempt >= kAllocationWaits) break;
    for (int i = 0; i < 2 && !stop_; ++i) std::this_thread::sleep_for(kAllocationWait / 2);
    if (stop_) throw Cancelled();
  }
  json& status = claim["status"];
  if (!status.is_object()) status = json::object();
  json& reserved = status["reservedFor"];
  if (!reserved.is_array()) reserved = json::array();
  for (const json& r : reserved)
    if (r.is_object() && r.value("resource", "") == "pods" &&
        (op.pod_uid.empty() ? r.value("name", "") == pod_name : r.value("uid", "") == op.pod_uid))
      return {};  // reserved already (an earlier try that timed out)
  const bool allocated = status.contains("allocation") && !status["allocation"].is_null();
  if (a.allocated_now) {
    if (allocated) return refused(" got allocated elsewhere in the meantime");
    json& finalizers = claim["metadata"]["finalizers"];
    if (!finalizers.is_array()) finalizers = json::array();
    if (std::find(finalizers.begin(), finalizers.end(), kFinalizer) == finalizers.end()) {
      // The finalizer goes in a plain update; status is not written there.
      finalizers.push_back(kFinalizer);
      const Response put = call(c, "PUT", path, claim.dump());
      if (put.status != 200) return refused(": " + status_message(put));
      json updated = parse_answer(put.body);
      if (!updated.is_object()) return refused(": the server's answer is not an object");
      updated["status"] = status;
      claim = std::move(updated);
    }
    claim["status"]["allocation"] =
        cache::allocation_json(model::DeviceAllocation{a.devices, a.node_selector});
  } else {
    if (!allocated) return refused(" is not allocated any more");
    if (reserved.size() >= kMaxReservations) return refused(" is in use");
  }
  claim["status"]["reservedFor"].push_back(
      cache::consumer_json(model::ClaimConsumer{"", "pods", pod_name, op.pod_uid}));
  // metadata.resourceVersion, as read: a concurrent change is a conflict.
  const Response put = call(c, "PUT", path + "/status", claim.dump());
  if (put.status != 200) return refused(": " + status_message(put));
  assume(put.body, cache::Kind::ResourceClaim, a.claim);
  return {};
}

}  // namespace scoria::kube
