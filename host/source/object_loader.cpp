#include "source/object_loader.h"

#include <algorithm>
#include <exception>
#include <iterator>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <variant>

#include "decode/field_reader.h"
#include "decode/object_decoder.h"
#include "input/documents.h"
#include "input/ordered_batches.h"
#include "model/error.h"
#include "model/implicit_pod_group.h"
#include "source/document_fields.h"
#include "source/file_text.h"

namespace scoria::source {

namespace {

using decode::Decoded;

constexpr std::string_view kGroupNameKey = "scheduling.k8s.io/group-name";
constexpr std::string_view kQueueNameKey = "scheduling.volcano.sh/queue-name";
constexpr std::string_view kDefaultQueue = "default";
constexpr std::string_view kStdinName = "<stdin>";

std::string quote(std::string_view s) { return "\"" + std::string(s) + "\""; }

/// What reading a text (or documents) found: its objects, and the warnings
/// about unknown fields, document by document (slot by slot).
struct Parsed {
  std::vector<std::vector<Decoded>> objects;
  std::vector<std::vector<std::string>> warnings;

  void assign(size_t n) {
    objects.assign(n, {});
    warnings.assign(n, {});
  }
};

/// Decodes one document into slot `slot` of `out`, then looks for unknown
/// fields in it as `checks` say: Strict throws the first as an InputError.
template <class Document>  // input::Document or input::TreeDocument
void decode_one(const Document& doc, std::string_view file, const FieldChecks& checks, size_t slot,
                Parsed& out) {
  // An empty document (a stray "---") is numbered but holds nothing.
  if (doc.value.is_null()) return;
  decode::decode_document(doc.value, file, doc.number, out.objects[slot]);
  if (checks.validation == schema::FieldValidation::kIgnore) return;
  std::vector<std::string> unknown = unknown_field_messages(doc.value, file, doc.number);
  if (unknown.empty()) return;
  if (checks.validation == schema::FieldValidation::kStrict) throw InputError(unknown.front());
  auto& warnings = out.warnings[slot];
  std::move(unknown.begin(), unknown.end(), std::back_inserter(warnings));
}

/// Every object of `docs`, document by document, decoded on every core.
Parsed decode_all(const std::vector<input::Document>& docs, std::string_view file,
                  const FieldChecks& checks) {
  Parsed out;
  out.assign(docs.size());
  std::vector<std::exception_ptr> errors(docs.size());
  input::run_ordered_batches(docs.size(), [&](size_t i) {
    try {
      decode_one(docs[i], file, checks, i, out);
    } catch (...) {
      errors[i] = std::current_exception();
      return false;
    }
    return true;
  });
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
  return out;
}

/// Every object in `text`, read and decoded on every core, document by
/// document: no more than a batch of trees is alive at once.
Parsed parse_text(std::string_view text, std::string_view file, const FieldChecks& checks) {
  Parsed out;
  input::stream_documents(
      text, file, input::kFileLimits, [&](size_t n) { out.assign(n); },
      [&](size_t slot, const input::TreeDocument& doc) {
        decode_one(doc, file, checks, slot, out);
      });
  return out;
}

/// Hands the warnings of what was read to `checks.warn`, in order: the
/// first kMaxFieldWarnings of a read, then (finish) a count of the rest.
class FieldWarnings {
 public:
  explicit FieldWarnings(const FieldChecks& checks) : checks_(checks) {}
  FieldWarnings(const FieldWarnings&) = delete;
  FieldWarnings& operator=(const FieldWarnings&) = delete;

  void add(const Parsed& parsed) {
    if (!checks_.warn) return;
    for (const std::vector<std::string>& slot : parsed.warnings) {
      for (const std::string& w : slot) {
        if (shown_ < kMaxFieldWarnings) {
          checks_.warn(w);
          ++shown_;
        } else {
          ++hidden_;
        }
      }
    }
  }

  void finish() {
    if (hidden_ > 0) checks_.warn(std::to_string(hidden_) + " more unknown fields not shown");
  }

 private:
  const FieldChecks& checks_;
  size_t shown_ = 0;
  size_t hidden_ = 0;
};

// ===========================================================================
// Collecting objects across files
// ===========================================================================

/// Where an object came from, for messages about references.
struct Origin {
  std::string_view file;  // empty: not read from a file
  int doc = 0;
  int item = -1;
};

/// Where each object of a ClusterObjects came from, index by index, plus
/// what the model has no field for.
struct Origins {
  std::vector<Origin> pods, pod_groups, queues, priority_classes;
  std::set<std::string> never_preempt_classes;
};

// "FILE: document N (Kind name): field F: what", or without the file and
// document for objects that came from elsewhere.
std::string message_at(const Origin* o, std::string_view kind, const std::string& object,
                       std::string_view field, std::string_view what) {
  std::string msg;
  if (o != nullptr && !o->file.empty()) {
    msg = std::string(o->file) + ": document " + std::to_string(o->doc) + " (" +
          decode::object_label(kind, object) + "): field " +
          (o->item >= 0 ? "items[" + std::to_string(o->item) + "]." : "") + std::string(field) +
          ": ";
  } else {
    msg = decode::object_label(kind, object) + ": field " + std::string(field) + ": ";
  }
  return msg + std::string(what);
}

[[noreturn]] void fail_at(const Origin* o, std::string_view kind, const std::string& object,
                          std::string_view field, std::string_view what) {
  throw InputError(message_at(o, kind, object, field, what));
}

std::string where(const Origin& o) {
  if (o.file.empty()) return "an object given before";
  return "document " + std::to_string(o.doc) + " of " + std::string(o.file);
}

/// Builds a ClusterObjects file by file, refusing duplicates across all of
/// them (and against objects that were there before).
class Collector {
 public:
  Collector() = default;

  /// Objects already present elsewhere, that new ones must not duplicate.
  void claim_existing(const model::ClusterObjects& objects) {
    for (const auto& n : objects.nodes) seen_.emplace(key("Node", n.name), Origin{});
    for (const auto& p : objects.pods) seen_.emplace(key("Pod", p.key()), Origin{});
    for (const auto& g : objects.pod_groups) seen_.emplace(key("PodGroup", g.key()), Origin{});
    for (const auto& q : objects.queues) seen_.emplace(key("Queue", q.name), Origin{});
    for (const auto& c : objects.priority_classes)
      seen_.emplace(key("PriorityClass", c.name), Origin{});
    for (const auto& n : objects.namespaces) seen_.emplace(key("Namespace", n.name), Origin{});
    for (const auto& b : objects.disruption_budgets)
      seen_.emplace(key("PodDisruptionBudget", b.key()), Origin{});
    for (const auto& q : objects.resource_quotas)
      seen_.emplace(key("ResourceQuota", q.key()), Origin{});
    for (const auto& t : objects.numa_topologies)
      seen_.emplace(key("Numatopology", t.key()), Origin{});
    for (const auto& h : objects.hyper_nodes) seen_.emplace(key("HyperNode", h.name), Origin{});
    for (const auto& v : objects.volumes) seen_.emplace(key("PersistentVolume", v.key()), Origin{});
    for (const auto& c : objects.claims)
      seen_.emplace(key("PersistentVolumeClaim", c.key()), Origin{});
    for (const auto& c : objects.storage_classes)
      seen_.emplace(key("StorageClass", c.key()), Origin{});
    for (const auto& n : objects.csi_nodes) seen_.emplace(key("CSINode", n.key()), Origin{});
    for (const auto& d : objects.csi_drivers) seen_.emplace(key("CSIDriver", d.key()), Origin{});
    for (const auto& c : objects.storage_capacities)
      seen_.emplace(key("CSIStorageCapacity", c.key()), Origin{});
    for (const auto& c : objects.device_classes)
      seen_.emplace(key("DeviceClass", c.key()), Origin{});
    for (const auto& s : objects.resource_slices)
      seen_.emplace(key("ResourceSlice", s.key()), Origin{});
    for (const auto& c : objects.resource_claims)
      seen_.emplace(key("ResourceClaim", c.key()), Origin{});
    for (const auto& t : objects.claim_templates)
      seen_.emplace(key("ResourceClaimTemplate", t.key()), Origin{});
  }

  void add(Parsed parsed, std::string_view file) {
    reserve(parsed.objects);
    for (std::vector<Decoded>& chunk : parsed.objects) {
      for (Decoded& p : chunk) {
        const Origin origin{file, p.doc, p.item};
        std::visit([&](auto& obj) { add(std::move(obj), origin, p.never_preempt); }, p.object);
      }
      chunk = {};  // free as we go: the objects have moved on
    }
  }

  model::ClusterObjects& objects() { return objects_; }
  const Origins& origins() const { return origins_; }

 private:
  // The kinds a cluster holds by the hundred thousand get their room at
  // once, and the duplicate check room for every object: growing them
  // moves each object, or rehashes each name, again and again.
  void reserve(const std::vector<std::vector<Decoded>>& parsed) {
    size_t pods = 0, nodes = 0, groups = 0, volumes = 0, claims = 0, all = 0;
    for (const auto& chunk : parsed) {
      for (const Decoded& p : chunk) {
        pods += std::holds_alternative<model::Pod>(p.object) ? 1 : 0;
        nodes += std::holds_alternative<model::Node>(p.object) ? 1 : 0;
        groups += std::holds_alternative<model::PodGroup>(p.object) ? 1 : 0;
        volumes += std::holds_alternative<model::PersistentVolume>(p.object) ? 1 : 0;
        claims += std::holds_alternative<model::PersistentVolumeClaim>(p.object) ? 1 : 0;
      }
      all += chunk.size();
    }
    objects_.pods.reserve(objects_.pods.size() + pods);
    origins_.pods.reserve(origins_.pods.size() + pods);
    objects_.nodes.reserve(objects_.nodes.size() + nodes);
    objects_.pod_groups.reserve(objects_.pod_groups.size() + groups);
    origins_.pod_groups.reserve(origins_.pod_groups.size() + groups);
    objects_.volumes.reserve(objects_.volumes.size() + volumes);
    objects_.claims.reserve(objects_.claims.size() + claims);
    seen_.reserve(seen_.size() + all);
  }

  static std::string key(std::string_view kind, const std::string& name) {
    return std::string(kind) + '\n' + name;
  }

  void claim(std::string_view kind, const std::string& object, const Origin& origin,
             bool namespaced) {
    auto [it, fresh] = seen_.emplace(key(kind, object), origin);
    if (fresh) return;
    const Origin& first = it->second;
    const std::string before =
        first.file == origin.file ? "document " + std::to_string(first.doc) : where(first);
    const std::string scope =
        namespaced ? " in namespace \"" + object.substr(0, object.find('/')) + "\"" : "";
    fail_at(&origin, kind, object, "metadata.name",
            quote(object.substr(object.find('/') + 1)) + " is already used by " + before +
                "; give each " + std::string(kind) + scope + " its own name");
  }

  void add(model::Node&& n, const Origin& o, bool) {
    claim("Node", n.name, o, false);
    objects_.nodes.push_back(std::move(n));
  }
  void add(model::Pod&& p, const Origin& o, bool) {
    claim("Pod", p.key(), o, true);
    objects_.pods.push_back(std::move(p));
    origins_.pods.push_back(o);
  }
  void add(model::PodGroup&& g, const Origin& o, bool) {
    claim("PodGroup", g.key(), o, true);
    objects_.pod_groups.push_back(std::move(g));
    origins_.pod_groups.push_back(o);
  }
  void add(model::Queue&& q, const Origin& o, bool) {
    claim("Queue", q.name, o, false);
    objects_.queues.push_back(std::move(q));
    origins_.queues.push_back(o);
  }
  void add(model::PriorityClass&& c, const Origin& o, bool never) {
    claim("PriorityClass", c.name, o, false);
    if (never) origins_.never_preempt_classes.insert(c.name);
    objects_.priority_classes.push_back(std::move(c));
    origins_.priority_classes.push_back(o);
  }
  void add(model::Namespace&& n, const Origin& o, bool) {
    claim("Namespace", n.name, o, false);
    objects_.namespaces.push_back(std::move(n));
  }
  void add(model::PodDisruptionBudget&& b, const Origin& o, bool) {
    claim("PodDisruptionBudget", b.key(), o, true);
    objects_.disruption_budgets.push_back(std::move(b));
  }
  void add(model::ResourceQuota&& q, const Origin& o, bool) {
    claim("ResourceQuota", q.key(), o, true);
    objects_.resource_quotas.push_back(std::move(q));
  }
  void add(model::Numatopology&& t, const Origin& o, bool) {
    claim("Numatopology", t.key(), o, false);
    objects_.numa_topologies.push_back(std::move(t));
  }
  void add(model::HyperNode&& h, const Origin& o, bool) {
    claim("HyperNode", h.name, o, false);
    objects_.hyper_nodes.push_back(std::move(h));
  }
  void add(model::PersistentVolume&& v, const Origin& o, bool) {
    claim("PersistentVolume", v.key(), o, false);
    objects_.volumes.push_back(std::move(v));
  }
  void add(model::PersistentVolumeClaim&& c, const Origin& o, bool) {
    claim("PersistentVolumeClaim", c.key(), o, true);
    objects_.claims.push_back(std::move(c));
  }
  void add(model::StorageClass&& c, const Origin& o, bool) {
    claim("StorageClass", c.key(), o, false);
    objects_.storage_classes.push_back(std::move(c));
  }
  void add(model::CSINode&& n, const Origin& o, bool) {
    claim("CSINode", n.key(), o, false);
    objects_.csi_nodes.push_back(std::move(n));
  }
  void add(model::CSIDriver&& d, const Origin& o, bool) {
    claim("CSIDriver", d.key(), o, false);
    objects_.csi_drivers.push_back(std::move(d));
  }
  void add(model::CSIStorageCapacity&& c, const Origin& o, bool) {
    claim("CSIStorageCapacity", c.key(), o, true);
    objects_.storage_capacities.push_back(std::move(c));
  }
  void add(model::DeviceClass&& c, const Origin& o, bool) {
    claim("DeviceClass", c.key(), o, false);
    objects_.device_classes.push_back(std::move(c));
  }
  void add(model::ResourceSlice&& s, const Origin& o, bool) {
    claim("ResourceSlice", s.key(), o, false);
    objects_.resource_slices.push_back(std::move(s));
  }
  void add(model::ResourceClaim&& c, const Origin& o, bool) {
    claim("ResourceClaim", c.key(), o, true);
    objects_.resource_claims.push_back(std::move(c));
  }
  void add(model::ResourceClaimTemplate&& t, const Origin& o, bool) {
    claim("ResourceClaimTemplate", t.key(), o, true);
    objects_.claim_templates.push_back(std::move(t));
  }

  model::ClusterObjects objects_;
  Origins origins_;
  std::unordered_map<std::string, Origin> seen_;
};

// ===========================================================================
// Completion
// ===========================================================================

// PriorityClasses every Kubernetes cluster has without defining them.
std::optional<int32_t> builtin_class(std::string_view name) {
  if (name == "system-cluster-critical") return 2000000000;
  if (name == "system-node-critical") return 2000001000;
  return std::nullopt;
}

const Origin* origin_of(const std::vector<Origin>* list, size_t i) {
  return list != nullptr && i < list->size() ? &(*list)[i] : nullptr;
}

std::string group_annotation_field() {
  return "metadata.annotations[" + std::string(kGroupNameKey) + "]";
}

void complete(model::ClusterObjects& objects, const Origins* origins,
              const std::function<void(const std::string&)>& warn) {
  // Check every reference first: on error nothing has changed.
  std::unordered_map<std::string, int32_t> class_value;
  std::optional<int32_t> global_default;
  const model::PriorityClass* default_class = nullptr;
  for (size_t i = 0; i < objects.priority_classes.size(); ++i) {
    const model::PriorityClass& pc = objects.priority_classes[i];
    class_value.emplace(pc.name, pc.value);
    if (!pc.global_default) continue;
    if (default_class != nullptr) {
      fail_at(origin_of(origins ? &origins->priority_classes : nullptr, i), "PriorityClass",
              pc.name, "globalDefault",
              "PriorityClass " + quote(default_class->name) +
                  " is already the global default; set globalDefault: true on one class only");
    }
    default_class = &pc;
    global_default = pc.value;
  }
  auto class_exists = [&](const std::string& name) {
    return class_value.count(name) > 0 || builtin_class(name).has_value();
  };

  std::unordered_set<std::string> queues{std::string(kDefaultQueue)};
  for (const auto& q : objects.queues) queues.insert(q.name);
  for (size_t i = 0; i < objects.queues.size(); ++i) {
    const model::Queue& q = objects.queues[i];
    const Origin* o = origin_of(origins ? &origins->queues : nullptr, i);
    if (q.parent == q.name)
      fail_at(o, "Queue", q.name, "spec.parent", "a queue cannot be its own parent; name another");
    if (!q.parent.empty() && q.parent != "root" && queues.count(q.parent) == 0) {
      fail_at(o, "Queue", q.name, "spec.parent",
              "no Queue " + quote(q.parent) + " is defined; define it or leave parent unset");
    }
  }

  std::unordered_set<std::string> groups;
  for (size_t i = 0; i < objects.pod_groups.size(); ++i) {
    const model::PodGroup& g = objects.pod_groups[i];
    const Origin* o = origin_of(origins ? &origins->pod_groups : nullptr, i);
    groups.insert(g.key());
    // No admission checks a PodGroup's class (a pod's is checked below, as
    // Kubernetes' Priority admission does): Volcano's scheduler gives the
    // job the default priority, and so does Scoria, saying so.
    if (!g.priority_class_name.empty() && !class_exists(g.priority_class_name) && warn) {
      warn(message_at(o, "PodGroup", g.key(), "spec.priorityClassName",
                      "no PriorityClass " + quote(g.priority_class_name) +
                          " is defined; the job takes the default priority (the globalDefault "
                          "class's, else 0), as in Volcano; define the class or remove "
                          "priorityClassName"));
    }
    if (queues.count(g.queue) == 0) {
      fail_at(o, "PodGroup", g.key(), "spec.queue",
              "no Queue " + quote(g.queue) +
                  " is defined; define it (kind: Queue) or use queue \"default\"");
    }
  }

  for (size_t i = 0; i < objects.pods.size(); ++i) {
    const model::Pod& p = objects.pods[i];
    const Origin* o = origin_of(origins ? &origins->pods : nullptr, i);
    if (!p.priority_class_name.empty() && !class_exists(p.priority_class_name)) {
      fail_at(o, "Pod", p.key(), "spec.priorityClassName",
              "no PriorityClass " + quote(p.priority_class_name) +
                  " is defined; define it (kind: PriorityClass) or remove priorityClassName");
    }
    if (!p.group_name.empty()) {
      if (groups.count(p.namespace_ + "/" + p.group_name) == 0) {
        fail_at(o, "Pod", p.key(), group_annotation_field(),
                "no PodGroup " + quote(p.group_name) + " in namespace " + quote(p.namespace_) +
                    "; define it (kind: PodGroup) or remove the annotation");
      }
    } else if (auto q = p.annotations.find(std::string(kQueueNameKey));
               q != p.annotations.end() && queues.count(q->second) == 0) {
      fail_at(o, "Pod", p.key(), "metadata.annotations[" + std::string(kQueueNameKey) + "]",
              "no Queue " + quote(q->second) + " is defined; define it (kind: Queue)");
    }
  }

  // All is well: complete.
  if (std::none_of(objects.queues.begin(), objects.queues.end(),
                   [](const model::Queue& q) { return q.name == kDefaultQueue; })) {
    model::Queue q;
    q.name = std::string(kDefaultQueue);
    objects.queues.push_back(std::move(q));
  }

  for (model::Pod& p : objects.pods) {
    if (!p.priority) {
      if (!p.priority_class_name.empty()) {
        auto c = class_value.find(p.priority_class_name);
        p.priority = c != class_value.end() ? c->second : *builtin_class(p.priority_class_name);
      } else {
        p.priority = global_default.value_or(0);
      }
    }
    // Kubernetes' admission copies the class's preemptionPolicy to the pod.
    if (origins != nullptr) {
      const std::string& cls = p.priority_class_name.empty() && default_class
                                   ? default_class->name
                                   : p.priority_class_name;
      if (origins->never_preempt_classes.count(cls) > 0) p.preempt_never = true;
    }
    if (!p.group_name.empty()) continue;

    std::string name = p.name;
    for (int n = 1; groups.count(p.namespace_ + "/" + name) > 0; ++n)
      name = "podgroup-" + p.name + (n > 1 ? "-" + std::to_string(n) : "");
    model::PodGroup g = model::implicit_pod_group(p, std::move(name));
    groups.insert(g.key());
    p.group_name = g.name;
    objects.pod_groups.push_back(std::move(g));
  }
}

}  // namespace

namespace {

/// Appends what `c` collected to `out`: all or nothing.
/// Calls f(to, from) with each kind's list in `to` and in `from`.
template <class F>
void each_list(model::ClusterObjects& to, model::ClusterObjects& from, F&& f) {
  f(to.nodes, from.nodes);
  f(to.pods, from.pods);
  f(to.pod_groups, from.pod_groups);
  f(to.queues, from.queues);
  f(to.priority_classes, from.priority_classes);
  f(to.namespaces, from.namespaces);
  f(to.disruption_budgets, from.disruption_budgets);
  f(to.resource_quotas, from.resource_quotas);
  f(to.numa_topologies, from.numa_topologies);
  f(to.hyper_nodes, from.hyper_nodes);
  f(to.volumes, from.volumes);
  f(to.claims, from.claims);
  f(to.storage_classes, from.storage_classes);
  f(to.csi_nodes, from.csi_nodes);
  f(to.csi_drivers, from.csi_drivers);
  f(to.storage_capacities, from.storage_capacities);
  f(to.device_classes, from.device_classes);
  f(to.resource_slices, from.resource_slices);
  f(to.resource_claims, from.resource_claims);
  f(to.claim_templates, from.claim_templates);
}

void append_collected(Collector& c, model::ClusterObjects& out) {
  // Make room first: the moves below cannot fail, so `out` gets all or nothing.
  each_list(out, c.objects(), [](auto& to, auto& from) { to.reserve(to.size() + from.size()); });
  each_list(out, c.objects(), [](auto& to, auto& from) {
    std::move(from.begin(), from.end(), std::back_inserter(to));
  });
}

}  // namespace

void parse_objects(std::string_view text, const std::string& file_name, model::ClusterObjects& out,
                   const FieldChecks& checks) {
  Collector c;
  c.claim_existing(out);
  Parsed parsed = parse_text(text, file_name, checks);
  FieldWarnings warnings(checks);
  warnings.add(parsed);
  warnings.finish();
  c.add(std::move(parsed), file_name);
  append_collected(c, out);
}

void decode_objects(const std::vector<input::Document>& docs, std::string_view origin,
                    model::ClusterObjects& out, const FieldChecks& checks) {
  Collector c;
  c.claim_existing(out);
  Parsed parsed = decode_all(docs, origin, checks);
  FieldWarnings warnings(checks);
  warnings.add(parsed);
  warnings.finish();
  c.add(std::move(parsed), origin);
  append_collected(c, out);
}

model::ClusterObjects load_object_files(const std::vector<std::string>& files,
                                        const FieldChecks& checks) {
  Collector c;
  FieldWarnings warnings(checks);
  for (const std::string& f : files) {
    const FileText file(f);
    const std::string_view name = f == "-" ? kStdinName : std::string_view(f);
    Parsed parsed = parse_text(file.text(), name, checks);
    warnings.add(parsed);
    c.add(std::move(parsed), name);
  }
  warnings.finish();
  complete(c.objects(), &c.origins(), checks.warn);
  return std::move(c.objects());
}

void complete_objects(model::ClusterObjects& objects) { complete(objects, nullptr, {}); }

}  // namespace scoria::source
