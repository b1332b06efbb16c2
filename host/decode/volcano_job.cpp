#include "decode/volcano_job.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <variant>

#include "decode/object_decoder.h"
#include "decode/object_names.h"
#include "input/tree_json.h"
#include "model/quantity.h"
#include "model/resource_list.h"

namespace scoria::decode {

namespace {

struct Task {
  std::string name;
  int32_t replicas = 0;
  int32_t min_available = 0;
  bool min_given = false;
  const Node* template_ = nullptr;
  FieldPath at;
  int32_t priority = 0;
  model::ResourceList request;  // one pod's, as the scheduler counts it
  std::string topology_policy;  // topologyPolicy: the numa-aware plugin's
  // partitionPolicy: the task's pods in partitions of `size`, each a
  // sub-group of the PodGroup (spec.subGroupPolicy).
  struct Partition {
    int32_t total = 0;
    int32_t size = 0;
    int32_t min = 0;
    Json network_topology;  // null when unset
  };
  std::optional<Partition> partition;
};

// A networkTopology (the Job's or a partition's) as the PodGroup takes it,
// refused as Volcano's admission refuses it; null when absent.
Json topology_as_given(const FieldReader& r, const Node& parent, const FieldPath& at) {
  const Node& n = FieldReader::get(parent, "networkTopology");
  if (!FieldReader::present(n)) return nullptr;
  const FieldPath path = at.field("networkTopology");
  const Node& t = r.mapping(n, path);
  if (FieldReader::present(FieldReader::get(t, "highestTierAllowed")) &&
      !r.text_field(t, "highestTierName", path).empty())
    r.fail(path,
           "must not specify 'highestTierAllowed' and 'highestTierName' simultaneously; "
           "keep one");
  return input::to_json(t);
}

// A map field of strings, or an empty object.
Json string_map(const Node& object, std::string_view key) {
  const Node& m = FieldReader::get(object, key);
  return m.is_object() ? input::to_json(m) : Json::object();
}

// ownerReferences naming the Job as the controller of what it makes.
Json owned_by_job(const std::string& name, const Json& uid) {
  return Json::array({{{"apiVersion", kVolcanoJobApiVersion},
                       {"kind", "Job"},
                       {"name", name},
                       {"uid", uid},
                       {"controller", true},
                       {"blockOwnerDeletion", true}}});
}

}  // namespace

bool is_volcano_job(const Node& object) {
  if (!object.is_object()) return false;
  const Node& kind = FieldReader::get(object, "kind");
  const Node& api = FieldReader::get(object, "apiVersion");
  return kind.is_string() && kind.str() == "Job" && api.is_string() &&
         api.str().starts_with("batch.volcano.sh/");
}

bool is_volcano_job(const Json& object) {
  if (!object.is_object()) return false;
  const auto kind = object.find("kind");
  const auto api = object.find("apiVersion");
  return kind != object.end() && kind->is_string() && kind->get<std::string>() == "Job" &&
         api != object.end() && api->is_string() &&
         api->get<std::string>().starts_with("batch.volcano.sh/");
}

std::vector<Json> expand_volcano_job(
    const FieldReader& r, const Json& job, const FieldPath& root,
    const std::function<int32_t(const std::string&)>& priority_of) {
  input::NodeArena arena;
  return expand_volcano_job(r, input::from_json(job, arena), root, priority_of);
}

std::vector<Json> expand_volcano_job(
    const FieldReader& r, const Node& job, const FieldPath& root,
    const std::function<int32_t(const std::string&)>& priority_of) {
  const std::string api = r.text_field(job, "apiVersion", root);
  if (api != kVolcanoJobApiVersion)
    r.fail(root.field("apiVersion"), "\"" + api +
                                         "\" is not an apiVersion of Volcano's Job; write " +
                                         "apiVersion: " + std::string(kVolcanoJobApiVersion));
  const FieldPath meta_path = root.field("metadata");
  const Node& meta = r.map_field(job, "metadata", root);
  const std::string name = r.text_field(meta, "name", meta_path);
  if (name.empty()) r.fail(meta_path.field("name"), "is missing; give the Job a name");
  if (auto why = label_error(name)) r.fail(meta_path.field("name"), *why);
  std::string ns = r.text_field(meta, "namespace", meta_path);
  if (ns.empty()) ns = "default";
  const FieldPath spec_path = root.field("spec");
  const Node& spec = r.map_field(job, "spec", root);
  std::string queue = r.text_field(spec, "queue", spec_path);
  if (queue.empty()) queue = "default";
  std::string scheduler = r.text_field(spec, "schedulerName", spec_path);
  if (scheduler.empty()) scheduler = "volcano";
  const std::string priority_class = r.text_field(spec, "priorityClassName", spec_path);
  const Json job_topology = topology_as_given(r, spec, spec_path);

  // The tasks, with the webhook's defaults and checks.
  std::vector<Task> tasks;
  std::set<std::string> names;
  r.each_map(spec, "tasks", spec_path, [&](const Node& t, const FieldPath& at) {
    Task task;
    task.at = at;
    task.name = r.text_field(t, "name", at);
    if (task.name.empty()) task.name = "default" + std::to_string(tasks.size());
    if (auto why = label_error(task.name)) r.fail(at.field("name"), *why);
    if (!names.insert(task.name).second)
      r.fail(at.field("name"),
             "\"" + task.name + "\" names another task too; task names are unique");
    task.replicas = r.int_field(t, "replicas", at).value_or(0);
    if (task.replicas < 0) r.fail(at.field("replicas"), "must be >= 0");
    const Node& partition = FieldReader::get(t, "partitionPolicy");
    if (FieldReader::present(partition)) {
      const FieldPath pat = at.field("partitionPolicy");
      const Node& p = r.mapping(partition, pat);
      Task::Partition part;
      part.total = r.int_field(p, "totalPartitions", pat).value_or(0);
      part.size = r.int_field(p, "partitionSize", pat).value_or(0);
      part.min = r.int_field(p, "minPartitions", pat).value_or(0);
      if (part.total <= 0) r.fail(pat.field("totalPartitions"), "must be greater than 0");
      if (part.size <= 0) r.fail(pat.field("partitionSize"), "must be greater than 0");
      if (part.min < 0) r.fail(pat.field("minPartitions"), "must be >= 0");
      if (part.total * part.size != task.replicas)
        r.fail(pat, "totalPartitions x partitionSize (" + std::to_string(part.total * part.size) +
                        ") is not the task's replicas (" + std::to_string(task.replicas) +
                        "); make them equal");
      part.network_topology = topology_as_given(r, p, pat);
      task.partition = std::move(part);
    }
    if (const auto min = r.int_field(t, "minAvailable", at)) {
      if (*min < 0) r.fail(at.field("minAvailable"), "must be >= 0");
      if (*min > task.replicas)
        r.fail(at.field("minAvailable"),
               "must be <= replicas (" + std::to_string(task.replicas) + ")");
      if (task.partition && task.partition->min > 0 &&
          task.partition->min * task.partition->size != *min)
        r.fail(at.field("minAvailable"),
               "is not minPartitions x partitionSize (" +
                   std::to_string(task.partition->min * task.partition->size) +
                   "); leave it out or make them equal");
      task.min_available = *min;
      task.min_given = true;
    } else if (task.partition && task.partition->min > 0) {
      // The webhook's default: the partitions the task needs, whole.
      task.min_available = task.partition->min * task.partition->size;
    } else {
      task.min_available = task.replicas;
    }
    task.template_ = &r.map_field(t, "template", at);
    // The CRD's enum; the controller writes it on each pod.
    task.topology_policy = r.text_field(t, "topologyPolicy", at);
    if (!task.topology_policy.empty() && task.topology_policy != "none" &&
        task.topology_policy != "best-effort" && task.topology_policy != "restricted" &&
        task.topology_policy != "single-numa-node")
      r.fail(at.field("topologyPolicy"), "\"" + task.topology_policy +
                                             "\" is not a topology policy; write none, "
                                             "best-effort, restricted or single-numa-node");
    tasks.push_back(std::move(task));
  });
  if (tasks.empty())
    r.fail(spec_path.field("tasks"), "is missing or empty; a Job runs at least one task");
  int32_t total_replicas = 0, total_min = 0;
  for (const Task& t : tasks) {
    total_replicas += t.replicas;
    total_min += t.min_available;
  }
  int32_t min_available = r.int_field(spec, "minAvailable", spec_path).value_or(0);
  if (min_available < 0) r.fail(spec_path.field("minAvailable"), "must be >= 0");
  if (min_available == 0) min_available = total_min;
  if (min_available > total_replicas)
    r.fail(spec_path.field("minAvailable"),
           std::to_string(min_available) + " is greater than the tasks' replicas (" +
               std::to_string(total_replicas) + "); lower it or add replicas");

  const Json job_annotations = string_map(meta, "annotations");
  const Json job_labels = string_map(meta, "labels");
  const Json uid = input::to_json(FieldReader::get(meta, "uid"));
  const Json created = input::to_json(FieldReader::get(meta, "creationTimestamp"));
  const std::string group_name = name;

  std::vector<Json> out;
  out.push_back(Json());  // the PodGroup, once minResources is known
  for (Task& task : tasks) {
    const Node& tmpl = *task.template_;
    const Node& tmeta = FieldReader::get(tmpl, "metadata");
    Json pod_spec = FieldReader::get(tmpl, "spec").is_object()
                        ? input::to_json(FieldReader::get(tmpl, "spec"))
                        : Json::object();
    if (!pod_spec.contains("schedulerName")) pod_spec["schedulerName"] = scheduler;
    if (!pod_spec.contains("priorityClassName") && !priority_class.empty())
      pod_spec["priorityClassName"] = priority_class;
    const std::string pod_class = pod_spec.value("priorityClassName", std::string());
    task.priority = pod_class.empty() ? 0 : priority_of(pod_class);
    for (int32_t i = 0; i < task.replicas; ++i) {
      Json labels = string_map(tmeta, "labels");
      Json annotations = string_map(tmeta, "annotations");
      const std::string index = std::to_string(i);
      annotations["volcano.sh/task-index"] = index;
      annotations["volcano.sh/task-spec"] = task.name;
      annotations["scheduling.k8s.io/group-name"] = group_name;
      annotations["volcano.sh/job-name"] = name;
      annotations["volcano.sh/queue-name"] = queue;
      annotations["volcano.sh/job-version"] = "0";
      annotations["volcano.sh/template-uid"] = name + "-" + task.name;
      annotations["volcano.sh/job-retry-count"] = "0";
      if (!task.topology_policy.empty())
        annotations["volcano.sh/numa-topology-policy"] = task.topology_policy;
      for (const char* key :
           {"volcano.sh/preemptable", "volcano.sh/cooldown-time", "volcano.sh/revocable-zone"})
        if (job_annotations.contains(key)) annotations[key] = job_annotations[key];
      labels["volcano.sh/task-index"] = index;
      if (task.partition)
        labels["volcano.sh/partition-id"] = std::to_string(i / task.partition->size);
      labels["volcano.sh/job-name"] = name;
      labels["volcano.sh/task-spec"] = task.name;
      labels["volcano.sh/job-namespace"] = ns;
      labels["volcano.sh/queue-name"] = queue;
      for (const char* key : {"volcano.sh/preemptable", "volcano.sh/cooldown-time"})
        if (job_labels.contains(key)) labels[key] = job_labels[key];
      Json pod_meta = {{"name", name + "-" + task.name + "-" + index},
                       {"namespace", ns},
                       {"labels", std::move(labels)},
                       {"annotations", std::move(annotations)}};
      if (created.is_string()) pod_meta["creationTimestamp"] = created;
      if (uid.is_string()) pod_meta["ownerReferences"] = owned_by_job(name, uid);
      Json pod = {{"apiVersion", "v1"},
                  {"kind", "Pod"},
                  {"metadata", std::move(pod_meta)},
                  {"spec", pod_spec}};
      if (i == 0) {
        // One pod's request, as the scheduler reads it (init containers
        // as Kubernetes counts them): the task's unit of minResources.
        std::vector<Decoded> decoded;
        decode_document(pod, r.origin(), r.doc(), decoded);
        const auto& p = std::get<model::Pod>(decoded.at(0).object);
        task.request = p.init_requests;
        model::max_into(task.request, p.requests);
      }
      out.push_back(std::move(pod));
    }
  }

  // calcPGMinResources: tasks by priority, highest first. With the job's
  // minAvailable below the tasks' own, the first minAvailable pods; else
  // each task's minAvailable, then replicas beyond them up to it.
  std::vector<const Task*> order;
  for (const Task& t : tasks) order.push_back(&t);
  std::stable_sort(order.begin(), order.end(),
                   [](const Task* a, const Task* b) { return a->priority > b->priority; });
  std::map<std::string, double> min_resources;
  const auto take = [&](const Task& t, int32_t count) {
    for (const auto& [dim, value] : t.request)
      if (dim != "pods") min_resources[dim] += value * count;
  };
  if (min_available < total_min) {
    int32_t left = min_available;
    for (const Task* t : order) {
      const int32_t n = std::min(left, t->replicas);
      take(*t, n);
      left -= n;
      if (left <= 0) break;
    }
  } else {
    int32_t counted = 0;
    for (const Task* t : order) {
      const int32_t n = std::min(t->min_available, min_available - counted);
      take(*t, n);
      counted += n;
      if (counted >= min_available) break;
    }
    int32_t left = min_available - counted;
    for (const Task* t : order) {
      if (left <= 0) break;
      const int32_t spare = t->replicas - t->min_available;
      const int32_t n = std::min(left, spare);
      take(*t, n);
      left -= n;
    }
  }
  Json min_json = Json::object();
  for (const auto& [dim, value] : min_resources)
    if (value > 0) min_json[dim] = model::format_quantity(dim, value);
  Json min_task_member = Json::object();
  for (const Task& t : tasks) min_task_member[t.name] = t.min_available;
  Json group_meta = {{"name", group_name}, {"namespace", ns}};
  if (!job_annotations.empty()) group_meta["annotations"] = job_annotations;
  if (!job_labels.empty()) group_meta["labels"] = job_labels;
  if (created.is_string()) group_meta["creationTimestamp"] = created;
  if (uid.is_string()) group_meta["ownerReferences"] = owned_by_job(name, uid);
  Json group_spec = {{"minMember", min_available},
                     {"minTaskMember", std::move(min_task_member)},
                     {"queue", queue},
                     {"minResources", std::move(min_json)}};
  if (!priority_class.empty()) group_spec["priorityClassName"] = priority_class;
  if (!job_topology.is_null()) group_spec["networkTopology"] = job_topology;
  // Each partitioned task a sub-group policy (the controller's
  // getSubGroupPolicy): its pods by task-spec, one sub-group per
  // partition-id.
  Json policies = Json::array();
  for (const Task& t : tasks) {
    if (!t.partition) continue;
    Json policy = {{"name", t.name},
                   {"subGroupSize", t.partition->size},
                   {"minSubGroups", t.partition->min},
                   {"labelSelector", {{"matchLabels", {{"volcano.sh/task-spec", t.name}}}}},
                   {"matchLabelKeys", Json::array({"volcano.sh/partition-id"})}};
    if (!t.partition->network_topology.is_null())
      policy["networkTopology"] = t.partition->network_topology;
    policies.push_back(std::move(policy));
  }
  if (!policies.empty()) group_spec["subGroupPolicy"] = std::move(policies);
  out[0] = {{"apiVersion", "scheduling.volcano.sh/v1beta1"},
            {"kind", "PodGroup"},
            {"metadata", std::move(group_meta)},
            {"spec", std::move(group_spec)}};
  return out;
}

}  // namespace scoria::decode
