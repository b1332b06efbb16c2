#include "api/table.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <ctime>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "api/table_columns.h"

namespace scoria::api {

namespace columns {

using nlohmann::json;

const json& at(const json& j, std::initializer_list<const char*> path) {
  static const json null;
  const json* cur = &j;
  for (const char* key : path) {
    if (!cur->is_object()) return null;
    const auto it = cur->find(key);
    if (it == cur->end()) return null;
    cur = &*it;
  }
  return *cur;
}

std::string text(const json& j, std::initializer_list<const char*> path, const char* absent) {
  const json& v = at(j, path);
  if (v.is_string() && !v.get_ref<const std::string&>().empty()) return v.get<std::string>();
  if (v.is_number() || v.is_boolean()) return v.dump();
  return absent;
}

Column name_column() {
  return {"Name", "string", 0, "Name must be unique within a namespace. Cannot be updated.",
          [](const json& o, Clock::time_point) {
            return text(o, {"metadata", "name"}, "");
          }};
}

Column age_column() {
  return {"Age", "string", 0,
          "CreationTimestamp is a timestamp representing the server time "
          "when this object was created.",
          [](const json& o, Clock::time_point now) {
            return age(text(o, {"metadata", "creationTimestamp"}, ""), now);
          }};
}

}  // namespace columns

namespace {

using columns::age_column;
using columns::at;
using columns::Clock;
using columns::Column;
using columns::name_column;
using columns::text;
using nlohmann::json;

json number(const json& j, std::initializer_list<const char*> path) {
  const json& v = at(j, path);
  return v.is_number() ? v : json(nullptr);
}

json age_cell(const json& o, Clock::time_point now) {
  return age(text(o, {"metadata", "creationTimestamp"}, ""), now);
}

// kubectl's pod printer: ready containers, the phase (or the reason the
// kubelet gave), restarts, and where it runs.
std::vector<Column> pod_columns() {
  return {
      name_column(),
      {"Ready", "string", 0, "The aggregate readiness state of this pod for accepting traffic.",
       [](const json& o, Clock::time_point) {
         const json& containers = at(o, {"spec", "containers"});
         const json& statuses = at(o, {"status", "containerStatuses"});
         int ready = 0;
         if (statuses.is_array())
           for (const json& s : statuses)
             if (s.is_object() && s.value("ready", false)) ++ready;
         const size_t total = containers.is_array() ? containers.size() : 0;
         return std::to_string(ready) + "/" + std::to_string(total);
       }},
      {"Status", "string", 0, "The aggregate status of the containers in this pod.",
       [](const json& o, Clock::time_point) {
         if (!at(o, {"metadata", "deletionTimestamp"}).is_null()) return json("Terminating");
         std::string reason = text(o, {"status", "reason"}, "");
         // As kube-apiserver's printer: a pod held by scheduling gates.
         const json& conditions = at(o, {"status", "conditions"});
         if (conditions.is_array())
           for (const json& c : conditions)
             if (c.is_object() && c.value("type", "") == "PodScheduled" &&
                 c.value("reason", "") == "SchedulingGated")
               reason = "SchedulingGated";
         if (!reason.empty()) return json(reason);
         return json(text(o, {"status", "phase"}, "Pending"));
       }},
      {"Restarts", "string", 0,
       "The number of times the containers in this pod have been restarted.",
       [](const json& o, Clock::time_point) {
         int restarts = 0;
         const json& statuses = at(o, {"status", "containerStatuses"});
         if (statuses.is_array())
           for (const json& s : statuses)
             if (s.is_object() && s.contains("restartCount") && s["restartCount"].is_number())
               restarts += s["restartCount"].get<int>();
         return std::to_string(restarts);
       }},
      age_column(),
      {"IP", "string", 1, "IP address allocated to the pod. Routable at least within the cluster.",
       [](const json& o, Clock::time_point) {
         return text(o, {"status", "podIP"});
       }},
      {"Node", "string", 1, "Name of the node where the pod is scheduled.",
       [](const json& o, Clock::time_point) {
         return text(o, {"spec", "nodeName"});
       }},
      {"Nominated Node", "string", 1, "The node the scheduler has nominated for this pod.",
       [](const json& o, Clock::time_point) {
         return text(o, {"status", "nominatedNodeName"});
       }},
      {"Readiness Gates", "string", 1, "The pod's readiness gates.",
       [](const json&, Clock::time_point) { return json("<none>"); }},
  };
}

std::vector<Column> node_columns() {
  return {
      name_column(),
      {"Status", "string", 0, "The status of the node",
       [](const json& o, Clock::time_point) {
         std::string status = "Unknown";
         const json& conditions = at(o, {"status", "conditions"});
         if (conditions.is_array())
           for (const json& c : conditions)
             if (c.is_object() && c.value("type", "") == "Ready")
               status = c.value("status", "") == "True" ? "Ready" : "NotReady";
         if (at(o, {"spec", "unschedulable"}) == true) status += ",SchedulingDisabled";
         return status;
       }},
      {"Roles", "string", 0, "The roles of the node",
       [](const json& o, Clock::time_point) {
         std::string roles;
         const json& labels = at(o, {"metadata", "labels"});
         constexpr std::string_view kRole = "node-role.kubernetes.io/";
         if (labels.is_object())
           for (const auto& [key, value] : labels.items())
             if (key.starts_with(kRole) && key.size() > kRole.size())
               roles += (roles.empty() ? "" : ",") + key.substr(kRole.size());
         return roles.empty() ? std::string("<none>") : roles;
       }},
      age_column(),
      {"Version", "string", 0, "Kubelet Version reported by the node.",
       [](const json& o, Clock::time_point) {
         return text(o, {"status", "nodeInfo", "kubeletVersion"}, "");
       }},
  };
}

// Volcano's CRD printer columns (installer/helm/chart/volcano/crd/bases):
// PodGroup and Job both end with RUNNINGS, AGE and (wide) QUEUE.
Column running_column() {
  return {"RUNNINGS", "integer", 0, "", [](const json& o, Clock::time_point) {
            return number(o, {"status", "running"});
          }};
}

Column queue_column() {
  return {"QUEUE", "string", 1, "", [](const json& o, Clock::time_point) {
            return text(o, {"spec", "queue"}, "");
          }};
}

std::vector<Column> pod_group_columns() {
  return {
      name_column(),
      {"STATUS", "string", 0, "",
       [](const json& o, Clock::time_point) {
         return text(o, {"status", "phase"}, "");
       }},
      {"minMember", "integer", 0, "",
       [](const json& o, Clock::time_point) {
         return number(o, {"spec", "minMember"});
       }},
      running_column(),
      {"AGE", "date", 0, "", age_cell},
      queue_column(),
  };
}

// A scheduling.k8s.io PodGroup: its policy, and whether it was placed (the
// condition the scheduler writes).
std::vector<Column> native_pod_group_columns() {
  return {
      name_column(),
      {"Policy", "string", 0, "The group's scheduling policy: gang or basic",
       [](const json& o, Clock::time_point) -> json {
         const json& policy = at(o, {"spec", "schedulingPolicy"});
         if (!policy.is_object()) return "";
         return policy.contains("gang") ? "gang" : policy.contains("basic") ? "basic" : "";
       }},
      {"MinCount", "integer", 0, "The pods a gang needs placed together",
       [](const json& o, Clock::time_point) {
         return number(o, {"spec", "schedulingPolicy", "gang", "minCount"});
       }},
      {"Scheduled", "string", 0, "Whether the group was placed (PodGroupInitiallyScheduled)",
       [](const json& o, Clock::time_point) -> json {
         const json& conditions = at(o, {"status", "conditions"});
         if (conditions.is_array())
           for (const json& c : conditions)
             if (c.is_object() && c.value("type", "") == "PodGroupInitiallyScheduled")
               return c.value("status", "");
         return "";
       }},
      age_column(),
  };
}

std::vector<Column> job_columns() {
  return {
      name_column(),
      {"STATUS", "string", 0, "",
       [](const json& o, Clock::time_point) {
         return text(o, {"status", "state", "phase"}, "");
       }},
      {"minAvailable", "integer", 0, "",
       [](const json& o, Clock::time_point) {
         return number(o, {"status", "minAvailable"});
       }},
      running_column(),
      {"AGE", "date", 0, "", age_cell},
      queue_column(),
  };
}

std::vector<Column> queue_columns() {
  return {name_column(), {"PARENT", "string", 0, "", [](const json& o, Clock::time_point) {
                            return text(o, {"spec", "parent"}, "");
                          }}};
}

std::vector<Column> priority_class_columns() {
  return {
      name_column(),
      {"Value", "integer", 0, "The value of this priority class.",
       [](const json& o, Clock::time_point) { return number(o, {"value"}); }},
      {"Global-Default", "boolean", 0, "Whether this is the default priority class.",
       [](const json& o, Clock::time_point) { return json(at(o, {"globalDefault"}) == true); }},
      age_column(),
      {"PreemptionPolicy", "string", 0, "When to preempt.",
       [](const json& o, Clock::time_point) {
         return text(o, {"preemptionPolicy"}, "PreemptLowerPriority");
       }},
  };
}

std::vector<Column> event_columns() {
  return {
      {"Last Seen", "string", 0, "Time since the event was last seen",
       [](const json& o, Clock::time_point now) {
         std::string last = text(o, {"lastTimestamp"}, "");
         if (last.empty()) last = text(o, {"metadata", "creationTimestamp"}, "");
         return age(last, now);
       }},
      {"Type", "string", 0, "Type of this event",
       [](const json& o, Clock::time_point) { return text(o, {"type"}, ""); }},
      {"Reason", "string", 0, "Why the event happened",
       [](const json& o, Clock::time_point) { return text(o, {"reason"}, ""); }},
      {"Object", "string", 0, "The object it is about",
       [](const json& o, Clock::time_point) {
         std::string kind = text(o, {"involvedObject", "kind"}, "");
         for (char& c : kind) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
         return kind + "/" + text(o, {"involvedObject", "name"}, "");
       }},
      {"Message", "string", 0, "What happened",
       [](const json& o, Clock::time_point) { return text(o, {"message"}, ""); }},
  };
}

// kubectl's printers: the budget as the spec gives it, and what the
// disruption controller last allowed.
std::vector<Column> disruption_budget_columns() {
  const auto spec_or_na = [](const char* field) {
    return [field](const json& o, Clock::time_point) { return text(o, {"spec", field}, "N/A"); };
  };
  return {
      name_column(),
      {"Min Available", "string", 0, "The minimum number of pods that must be available.",
       spec_or_na("minAvailable")},
      {"Max Unavailable", "string", 0, "The maximum number of pods that may be unavailable.",
       spec_or_na("maxUnavailable")},
      {"Allowed Disruptions", "integer", 0,
       "Calculated number of pods that may be disrupted at this time.",
       [](const json& o, Clock::time_point) {
         const json& n = at(o, {"status", "disruptionsAllowed"});
         return n.is_number() ? n : json(0);
       }},
      age_column(),
  };
}

// kubectl's ResourceQuota printer: "name: used/hard" of status, by name,
// the limits.* ones apart.
std::vector<Column> resource_quota_columns() {
  const auto usage = [](bool limits) {
    return [limits](const json& o, Clock::time_point) {
      const json& hard = at(o, {"status", "hard"});
      std::string out;
      if (!hard.is_object()) return json(out);
      for (const auto& [name, value] : hard.items()) {  // nlohmann keeps keys sorted
        if (name.starts_with("limits.") != limits) continue;
        const json& used = at(o, {"status", "used"});
        const std::string u = used.is_object() && used.contains(name)
                                  ? text(used, {name.c_str()}, "0")
                                  : std::string("0");
        out += (out.empty() ? "" : ", ") + name + ": " + u + "/" +
               (value.is_string() ? value.get<std::string>() : value.dump());
      }
      return json(out);
    };
  };
  return {
      name_column(),
      age_column(),
      {"Request", "string", 0,
       "Request represents a minimum amount of cpu/memory that a container may consume.",
       usage(false)},
      {"Limit", "string", 0,
       "Limits control the maximum amount of cpu/memory that a container may use independent of "
       "contention on the node.",
       usage(true)},
  };
}

std::vector<Column> columns_of(const Resource& r) {
  if (r.kind == "Pod") return pod_columns();
  if (r.kind == "Node") return node_columns();
  if (r.kind == "PodGroup" && r.group == "scheduling.k8s.io") return native_pod_group_columns();
  if (r.kind == "PodGroup") return pod_group_columns();
  if (r.kind == "Queue") return queue_columns();
  if (r.kind == "Job") return job_columns();
  if (r.kind == "PriorityClass") return priority_class_columns();
  if (r.kind == "Event") return event_columns();
  if (r.kind == "PodDisruptionBudget") return disruption_budget_columns();
  if (r.kind == "ResourceQuota") return resource_quota_columns();
  if (std::vector<Column> storage = columns::storage_columns(r.kind); !storage.empty())
    return storage;
  if (std::vector<Column> devices = columns::device_columns(r.kind); !devices.empty())
    return devices;
  if (r.kind == "Namespace")
    return {name_column(),
            {"Status", "string", 0, "The status of the namespace",
             [](const json& o, Clock::time_point) {
               return text(o, {"status", "phase"}, "Active");
             }},
            age_column()};
  if (r.kind == "Lease")
    return {name_column(),
            {"Holder", "string", 0, "The holder of the lease",
             [](const json& o, Clock::time_point) {
               return text(o, {"spec", "holderIdentity"}, "");
             }},
            age_column()};
  return {name_column(), age_column()};
}

}  // namespace

bool wants_table(std::string_view accept) {
  // "application/json;as=Table;v=v1;g=meta.k8s.io, application/json": the
  // first type the client lists decides.
  const std::string_view first = accept.substr(0, accept.find(','));
  return first.find("as=Table") != std::string_view::npos &&
         first.find("g=meta.k8s.io") != std::string_view::npos;
}

std::optional<IncludeObject> include_object(std::optional<std::string_view> value) {
  if (!value || value->empty() || *value == "Metadata") return IncludeObject::Metadata;
  if (*value == "None") return IncludeObject::None;
  if (*value == "Object") return IncludeObject::Object;
  return std::nullopt;
}

json table(const Resource& r, const json& objects, const json& list_meta, IncludeObject include,
           Clock::time_point now) {
  const std::vector<Column> columns = columns_of(r);
  json definitions = json::array();
  for (const Column& c : columns) {
    json d = {{"name", c.name},
              {"type", c.type},
              {"format", std::string_view(c.name) == "Name" ? "name" : ""},
              {"description", c.description},
              {"priority", c.priority}};
    definitions.push_back(std::move(d));
  }
  json rows = json::array();
  for (const json& o : objects) {
    json cells = json::array();
    for (const Column& c : columns) cells.push_back(c.cell(o, now));
    json row = {{"cells", std::move(cells)}};
    if (include == IncludeObject::Object) {
      row["object"] = o;
    } else if (include == IncludeObject::Metadata) {
      row["object"] = {{"kind", "PartialObjectMetadata"},
                       {"apiVersion", "meta.k8s.io/v1"},
                       {"metadata", at(o, {"metadata"})}};
    }
    rows.push_back(std::move(row));
  }
  return {{"kind", "Table"},
          {"apiVersion", "meta.k8s.io/v1"},
          {"metadata", list_meta},
          {"columnDefinitions", std::move(definitions)},
          {"rows", std::move(rows)}};
}

std::string age(std::string_view rfc3339, Clock::time_point now) {
  std::tm tm{};
  int year = 0, month = 0;
  if (rfc3339.size() < 20 ||
      std::sscanf(std::string(rfc3339).c_str(), "%d-%d-%dT%d:%d:%d", &year, &month, &tm.tm_mday,
                  &tm.tm_hour, &tm.tm_min, &tm.tm_sec) != 6)
    return "<unknown>";
  tm.tm_year = year - 1900;
  tm.tm_mon = month - 1;
  const auto then = Clock::from_time_t(timegm(&tm));
  const long long seconds = std::chrono::duration_cast<std::chrono::seconds>(now - then).count();
  // Kubernetes' duration.HumanDuration.
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 120) return std::to_string(seconds) + "s";
  const long long minutes = seconds / 60;
  if (minutes < 10) {
    const long long s = seconds % 60;
    return std::to_string(minutes) + "m" + (s == 0 ? "" : std::to_string(s) + "s");
  }
  if (minutes < 180) return std::to_string(minutes) + "m";
  const long long hours = minutes / 60;
  if (hours < 8) {
    const long long m = minutes % 60;
    return std::to_string(hours) + "h" + (m == 0 ? "" : std::to_string(m) + "m");
  }
  if (hours < 48) return std::to_string(hours) + "h";
  if (hours < 24 * 8) {
    const long long h = hours % 24;
    return std::to_string(hours / 24) + "d" + (h == 0 ? "" : std::to_string(h) + "h");
  }
  if (hours < 24 * 365 * 2) return std::to_string(hours / 24) + "d";
  if (hours < 24 * 365 * 8) {
    const long long d = (hours / 24) % 365;
    return std::to_string(hours / 24 / 365) + "y" + (d == 0 ? "" : std::to_string(d) + "d");
  }
  return std::to_string(hours / 24 / 365) + "y";
}

}  // namespace scoria::api
