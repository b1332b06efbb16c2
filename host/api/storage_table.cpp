// The storage kinds' columns, as kube-apiserver's printers show them
// (pkg/printers/internalversion/printers.go). Quantities are shown as the
// object gives them, where the API server would print them in canonical
// form: "1Gi" for "1024Mi".
#include <algorithm>
#include <array>
#include <string>
#include <utility>
#include <vector>

#include "api/table_columns.h"

namespace scoria::api::columns {

namespace {

using nlohmann::json;

// kubectl's short access modes, in its order, whatever order they were given in.
std::string access_modes(const json& modes) {
  static constexpr std::array<std::pair<const char*, const char*>, 4> kBrief{{
      {"ReadWriteOnce", "RWO"},
      {"ReadOnlyMany", "ROX"},
      {"ReadWriteMany", "RWX"},
      {"ReadWriteOncePod", "RWOP"},
  }};
  std::string out;
  if (!modes.is_array()) return out;
  for (const auto& [mode, brief] : kBrief) {
    if (std::find(modes.begin(), modes.end(), mode) != modes.end())
      out += (out.empty() ? "" : ",") + std::string(brief);
  }
  return out;
}

bool deleting(const json& o) { return !at(o, {"metadata", "deletionTimestamp"}).is_null(); }

// No status: what the scheduler reads it as (decode/persistent_volume_decoder.cpp).
json volume_status(const json& o, Clock::time_point) {
  if (deleting(o)) return "Terminating";
  const std::string phase = text(o, {"status", "phase"}, "");
  if (!phase.empty()) return phase;
  return at(o, {"spec", "claimRef"}).is_object() ? "Bound" : "Available";
}

// No status: what the scheduler reads it as (decode/volume_claim_decoder.cpp).
json claim_status(const json& o, Clock::time_point) {
  if (deleting(o)) return "Terminating";
  const std::string phase = text(o, {"status", "phase"}, "");
  if (!phase.empty()) return phase;
  const bool completed =
      !at(o, {"metadata", "annotations", "pv.kubernetes.io/bind-completed"}).is_null();
  return !text(o, {"spec", "volumeName"}, "").empty() && completed ? "Bound" : "Pending";
}

std::string unset_or(const json& o, std::initializer_list<const char*> path) {
  return text(o, path, "<unset>");
}

std::vector<Column> persistent_volume_columns() {
  return {
      name_column(),
      {"Capacity", "string", 0, "The volume's size.",
       [](const json& o, Clock::time_point) {
         return text(o, {"spec", "capacity", "storage"}, "0");
       }},
      {"Access Modes", "string", 0, "The ways the volume can be mounted.",
       [](const json& o, Clock::time_point) {
         return access_modes(at(o, {"spec", "accessModes"}));
       }},
      {"Reclaim Policy", "string", 0, "What happens to the volume when its claim is released.",
       [](const json& o, Clock::time_point) {
         // The API server's default.
         return text(o, {"spec", "persistentVolumeReclaimPolicy"}, "Retain");
       }},
      {"Status", "string", 0, "The volume's phase.", volume_status},
      {"Claim", "string", 0, "The claim bound to the volume.",
       [](const json& o, Clock::time_point) {
         const json& ref = at(o, {"spec", "claimRef"});
         if (!ref.is_object()) return json("");
         return json(text(ref, {"namespace"}, "") + "/" + text(ref, {"name"}, ""));
       }},
      {"StorageClass", "string", 0, "StorageClass of the pv",
       [](const json& o, Clock::time_point) {
         const std::string name = text(o, {"spec", "storageClassName"}, "");
         if (!name.empty()) return name;
         return text(o, {"metadata", "annotations", "volume.beta.kubernetes.io/storage-class"}, "");
       }},
      {"VolumeAttributesClass", "string", 0, "VolumeAttributesClass of the pv",
       [](const json& o, Clock::time_point) {
         return unset_or(o, {"spec", "volumeAttributesClassName"});
       }},
      {"Reason", "string", 0, "Why the volume is in its phase.",
       [](const json& o, Clock::time_point) {
         return text(o, {"status", "reason"}, "");
       }},
      age_column(),
      {"VolumeMode", "string", 1, "Filesystem or Block.",
       [](const json& o, Clock::time_point) {
         return unset_or(o, {"spec", "volumeMode"});
       }},
  };
}

std::vector<Column> volume_claim_columns() {
  // A bound claim shows its volume's capacity and modes (status); others none.
  const auto bound = [](const json& o) { return !text(o, {"spec", "volumeName"}, "").empty(); };
  return {
      name_column(),
      {"Status", "string", 0, "The claim's phase.", claim_status},
      {"Volume", "string", 0, "The volume bound to the claim.",
       [](const json& o, Clock::time_point) {
         return text(o, {"spec", "volumeName"}, "");
       }},
      {"Capacity", "string", 0, "The size of the volume bound to the claim.",
       [bound](const json& o, Clock::time_point) {
         return bound(o) ? text(o, {"status", "capacity", "storage"}, "0") : std::string();
       }},
      {"Access Modes", "string", 0, "The access modes of the volume bound to the claim.",
       [bound](const json& o, Clock::time_point) {
         return bound(o) ? access_modes(at(o, {"status", "accessModes"})) : std::string();
       }},
      {"StorageClass", "string", 0, "StorageClass of the pvc",
       [](const json& o, Clock::time_point) {
         const std::string beta =
             text(o, {"metadata", "annotations", "volume.beta.kubernetes.io/storage-class"}, "");
         return beta.empty() ? text(o, {"spec", "storageClassName"}, "") : beta;
       }},
      {"VolumeAttributesClass", "string", 0, "VolumeAttributesClass of the pvc",
       [](const json& o, Clock::time_point) {
         return unset_or(o, {"spec", "volumeAttributesClassName"});
       }},
      age_column(),
      {"VolumeMode", "string", 1, "Filesystem or Block.",
       [](const json& o, Clock::time_point) {
         return unset_or(o, {"spec", "volumeMode"});
       }},
  };
}

std::vector<Column> storage_class_columns() {
  return {
      {"Name", "string", 0, "Name must be unique within a namespace. Cannot be updated.",
       [](const json& o, Clock::time_point) {
         std::string name = text(o, {"metadata", "name"}, "");
         for (const char* key : {"storageclass.kubernetes.io/is-default-class",
                                 "storageclass.beta.kubernetes.io/is-default-class"}) {
           if (at(o, {"metadata", "annotations", key}) == "true") return name + " (default)";
         }
         return name;
       }},
      {"Provisioner", "string", 0, "What provisions the class's volumes.",
       [](const json& o, Clock::time_point) { return text(o, {"provisioner"}, ""); }},
      // The API server's defaults where the class leaves them out.
      {"ReclaimPolicy", "string", 0, "What happens to a released volume of the class.",
       [](const json& o, Clock::time_point) { return text(o, {"reclaimPolicy"}, "Delete"); }},
      {"VolumeBindingMode", "string", 0, "When a claim of the class is bound.",
       [](const json& o, Clock::time_point) {
         return text(o, {"volumeBindingMode"}, "Immediate");
       }},
      {"AllowVolumeExpansion", "string", 0, "Whether the class's volumes can grow.",
       [](const json& o, Clock::time_point) {
         return json(at(o, {"allowVolumeExpansion"}) == true);
       }},
      age_column(),
  };
}

std::vector<Column> csi_node_columns() {
  return {
      name_column(),
      {"Drivers", "integer", 0, "The number of CSI drivers registered on the node.",
       [](const json& o, Clock::time_point) {
         const json& drivers = at(o, {"spec", "drivers"});
         return json(drivers.is_array() ? drivers.size() : 0);
       }},
      age_column(),
  };
}

std::vector<Column> csi_driver_columns() {
  // The API server's defaults where the driver leaves them out.
  const auto flag = [](const char* field, bool absent) {
    return [field, absent](const json& o, Clock::time_point) {
      const json& v = at(o, {"spec", field});
      return json(v.is_boolean() ? v.get<bool>() : absent);
    };
  };
  return {
      name_column(),
      {"AttachRequired", "boolean", 0, "Whether the driver's volumes are attached to a node.",
       flag("attachRequired", true)},
      {"PodInfoOnMount", "boolean", 0, "Whether the driver is told about the pod on mount.",
       flag("podInfoOnMount", false)},
      {"StorageCapacity", "boolean", 0, "Whether the driver reports its capacity.",
       flag("storageCapacity", false)},
      {"TokenRequests", "string", 0, "The audiences of the tokens the driver is given.",
       [](const json& o, Clock::time_point) {
         std::string out;
         const json& requests = at(o, {"spec", "tokenRequests"});
         if (requests.is_array())
           for (const json& t : requests)
             out += (out.empty() ? "" : ",") + text(t, {"audience"}, "");
         return out.empty() ? std::string("<unset>") : out;
       }},
      {"RequiresRepublish", "boolean", 0, "Whether volumes are mounted again periodically.",
       flag("requiresRepublish", false)},
      {"Modes", "string", 0, "The volume lifecycle modes the driver supports.",
       [](const json& o, Clock::time_point) {
         std::string out;
         const json& modes = at(o, {"spec", "volumeLifecycleModes"});
         if (modes.is_array())
           for (const json& m : modes)
             out += (out.empty() ? "" : ",") + (m.is_string() ? m.get<std::string>() : m.dump());
         return out.empty() ? std::string("Persistent") : out;
       }},
      age_column(),
  };
}

std::vector<Column> storage_capacity_columns() {
  return {
      name_column(),
      {"StorageClassName", "string", 0, "The StorageClass the capacity is for.",
       [](const json& o, Clock::time_point) { return text(o, {"storageClassName"}, ""); }},
      {"Capacity", "string", 0, "What the class can still provision there.",
       [](const json& o, Clock::time_point) { return text(o, {"capacity"}, "<unset>"); }},
  };
}

}  // namespace

std::vector<Column> storage_columns(std::string_view kind) {
  if (kind == "PersistentVolume") return persistent_volume_columns();
  if (kind == "PersistentVolumeClaim") return volume_claim_columns();
  if (kind == "StorageClass") return storage_class_columns();
  if (kind == "CSINode") return csi_node_columns();
  if (kind == "CSIDriver") return csi_driver_columns();
  if (kind == "CSIStorageCapacity") return storage_capacity_columns();
  return {};
}

}  // namespace scoria::api::columns
