// Devices as Dynamic Resource Allocation describes them
// (resource.k8s.io/v1): the classes a claim asks for, the devices drivers
// publish in ResourceSlices, the claims pods name and the templates claims
// are made from. Immutable once decoded, as every model object.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "cel/quantity.h"
#include "cel/semver.h"
#include "cel/value.h"
#include "model/objects.h"

namespace scoria::model {

/// One CEL selector (`cel.expression`), as a class or a request lists them.
struct DeviceSelector {
  std::string expression;
};

/// resource.k8s.io/v1 DeviceClass.
struct DeviceClass {
  std::string name;
  std::vector<DeviceSelector> selectors;
  std::string json;

  const std::string& key() const { return name; }
};

/// A device attribute's value: exactly one of int, bool, string, version.
struct DeviceAttribute {
  std::variant<int64_t, bool, std::string, cel::Semver> value;
};

/// A taint a driver puts on a device (spec.devices[].taints).
struct DeviceTaint {
  std::string key;
  std::string value;
  TaintEffect effect = TaintEffect::NoSchedule;  // NoSchedule or NoExecute
};

/// One device a ResourceSlice publishes.
struct Device {
  std::string name;
  /// attributes and capacity by fully qualified name ("domain/id"; a name
  /// without a domain is given the driver's), as CEL sees them.
  std::map<std::string, DeviceAttribute> attributes;
  std::map<std::string, cel::Quantity> capacity;
  /// consumesCounters: what the device takes of its pool's shared counters
  /// (published in another slice of the pool) while allocated, by counter
  /// set then counter.
  std::map<std::string, std::map<std::string, cel::Quantity>> consumes;
  std::vector<DeviceTaint> taints;
  /// Per-device node selection (the slice's perDeviceNodeSelection): one of
  /// these set.
  std::string node_name;
  std::optional<std::vector<NodeSelectorTerm>> node_selector;
  bool all_nodes = false;
  /// The device as a selector's CEL sees it (`device`), made once when it is
  /// decoded (device_cel).
  cel::Value cel;
};

/// The CEL value `device` of a selector for a device a driver publishes:
/// driver, attributes and capacity by domain then name (a domain the
/// device has nothing of reads as an empty map, as in Kubernetes'
/// environment), allowMultipleAllocations.
cel::Value device_cel(const std::string& driver, const Device& device);

/// resource.k8s.io/v1 ResourceSlice: some of a pool's devices, available
/// on one node, on the nodes a selector picks, or on every node.
struct ResourceSlice {
  std::string name;
  std::string driver;
  std::string pool;
  int64_t pool_generation = 0;
  int64_t pool_slice_count = 1;  // resourceSliceCount
  /// Node selection: exactly one of these.
  std::string node_name;
  std::optional<std::vector<NodeSelectorTerm>> node_selector;  // terms ORed
  bool all_nodes = false;
  bool per_device_nodes = false;  // perDeviceNodeSelection
  std::vector<Device> devices;
  /// sharedCounters: each set's counters and what they hold.
  std::map<std::string, std::map<std::string, cel::Quantity>> counters;
  std::string json;

  const std::string& key() const { return name; }
};

enum class AllocationMode : uint8_t { ExactCount, All };

/// A request's device toleration (spec.devices.requests[].tolerations).
struct DeviceToleration {
  std::string key;  // empty with Exists: tolerates every taint
  std::string value;
  SelectorOp op = SelectorOp::Equal;  // Equal or Exists
  uint32_t effect = 0;                // TaintEffect value, 0: all effects
};

/// What one request, or one of its firstAvailable alternatives, asks for.
struct DeviceAsk {
  std::string name;  // the request's name; a sub-request's own name
  std::string device_class;
  std::vector<DeviceSelector> selectors;
  AllocationMode mode = AllocationMode::ExactCount;
  int64_t count = 1;
  bool admin_access = false;
  std::vector<DeviceToleration> tolerations;
  /// capacity.requests: what each device must give of a consumable
  /// capacity (DRAConsumableCapacity), by name as written.
  std::map<std::string, cel::Quantity> capacity_requests;
};

/// One entry of spec.devices.requests: `exactly` one ask, or
/// `firstAvailable` alternatives tried in order.
struct DeviceRequest {
  std::string name;
  std::optional<DeviceAsk> exactly;
  std::vector<DeviceAsk> first_available;
};

/// spec.devices.constraints[]: the devices of `requests` (all of the
/// claim's when empty) agree on an attribute.
struct DeviceConstraint {
  std::vector<std::string> requests;
  std::string match_attribute;     // fully qualified; empty: none
  std::string distinct_attribute;  // fully qualified; empty: none
};

/// What a claim asks of one device class as queue quota counts it
/// (Volcano's capacity): devices (`dimension` empty) or a consumable
/// capacity in plain units.
struct DeviceAmount {
  std::string device_class;
  std::string dimension;
  double amount = 0;
};

/// The devices a ResourceClaim asks for (ResourceClaimSpec).
struct DeviceClaimSpec {
  std::vector<DeviceRequest> requests;
  std::vector<DeviceConstraint> constraints;
  /// counted_devices(requests), made when the spec is decoded.
  std::vector<DeviceAmount> counted;
};

/// What `requests` ask of each class as Volcano's queue quota counts it:
/// `exactly` requests with ExactCount, their count of devices and each
/// consumable capacity they request times that count, added up by class
/// and dimension (in that order); firstAvailable and All are not counted,
/// the devices they take being unknown before allocation.
std::vector<DeviceAmount> counted_devices(const std::vector<DeviceRequest>& requests);

/// One device given to a claim (status.allocation.devices.results[]).
struct DeviceResult {
  std::string request;  // "req" or "req/sub" for a firstAvailable choice
  std::string driver;
  std::string pool;
  std::string device;
  bool admin_access = false;
};

/// Who a claim is reserved for (status.reservedFor[]).
struct ClaimConsumer {
  std::string api_group;  // "" for pods
  std::string resource;   // "pods"
  std::string name;
  std::string uid;
};

/// A claim's allocation (status.allocation).
struct DeviceAllocation {
  std::vector<DeviceResult> results;
  /// The nodes it may be used on (nodeSelector's terms, ORed); none: all.
  std::optional<std::vector<NodeSelectorTerm>> node_selector;
};

/// resource.k8s.io/v1 ResourceClaim.
struct ResourceClaim {
  std::string namespace_;
  std::string name;
  std::string uid;
  std::map<std::string, std::string> annotations;
  // The controlling owner: a claim made from a template is owned by its pod.
  std::string owner_kind, owner_name, owner_uid;
  DeviceClaimSpec spec;
  std::optional<DeviceAllocation> allocation;
  std::vector<ClaimConsumer> reserved_for;
  bool deleting = false;
  std::string json;

  std::string key() const { return namespace_ + "/" + name; }
};

/// resource.k8s.io/v1 ResourceClaimTemplate: the claim made for each pod
/// that names it.
struct ResourceClaimTemplate {
  std::string namespace_;
  std::string name;
  std::map<std::string, std::string> labels;       // spec.metadata.labels
  std::map<std::string, std::string> annotations;  // spec.metadata.annotations
  DeviceClaimSpec spec;
  std::string json;

  std::string key() const { return namespace_ + "/" + name; }
};

/// Whether a reference by name and uid (an owner, a reservation) names
/// `pod`: by uid where both have one (objects in files may have none),
/// else by name; the namespace is the caller's to match.
bool names_pod(const Pod& pod, const std::string& name, const std::string& uid);

/// The claim made for `pod` from the template of `ref` where no
/// resource-claim controller runs (files, the local store): POD-ENTRY.
std::string made_claim_name(const Pod& pod, const DeviceClaimRef& ref);
/// The same, appended to `out` (no allocation once `out` has room).
void append_made_claim_name(std::string& out, const Pod& pod, const DeviceClaimRef& ref);

}  // namespace scoria::model
