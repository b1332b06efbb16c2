#include "source/object_loader.h"

#include <algorithm>
#include <exception>
#include <iterator>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "decode/field_reader.h"
#include "decode/object_decoder.h"
#include "input/documents.h"
#include "input/ordered_batches.h"
#include "model/error.h"
#include "model/implicit_pod_group.h"
#include "source/document_fields.h"
#include "source/file_text.h"
#include "source/object_collector.h"

namespace scoria::source {

namespace {

using decode::quote;

constexpr std::string_view kGroupNameKey = "scheduling.k8s.io/group-name";
constexpr std::string_view kQueueNameKey = "scheduling.volcano.sh/queue-name";
constexpr std::string_view kDefaultQueue = "default";
constexpr std::string_view kStdinName = "<stdin>";

/// What reading a text (or documents) found: its objects, and the warnings
/// about unknown fields, run by run (slot by slot).
struct Parsed {
  std::vector<DecodedRun> runs;
  std::vector<std::vector<std::string>> warnings;

  void assign(size_t n) {
    runs.assign(n, {});
    warnings.assign(n, {});
  }
};

/// Decodes one document into slot `slot` of `out` (`in_slot`: how many
/// documents the slot holds), then looks for unknown fields in it as
/// `checks` say: Strict throws the first as an InputError.
template <class Document>  // input::Document or input::TreeDocument
void decode_one(const Document& doc, std::string_view file, const FieldChecks& checks, size_t slot,
                size_t in_slot, Parsed& out) {
  DecodedRun& run = out.runs[slot];
  // An empty document (a stray "---") is numbered but holds nothing.
  if (doc.value.is_null()) {
    run.document_done(in_slot);
    return;
  }
  // Room for the slot at once: growing it moves every object again.
  if (run.pending.empty()) run.pending.reserve(in_slot);
  decode::decode_document(doc.value, file, doc.number, run.pending);
  run.document_done(in_slot);
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
      decode_one(docs[i], file, checks, i, 1, out);
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
        decode_one(doc, file, checks, slot, doc.in_slot, out);
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

/// Checks every reference of `objects` (read by `read`, null when they come
/// from elsewhere), then completes them: priorities, the default queue and
/// a PodGroup for each pod without one.
void complete(model::ClusterObjects& objects, const Collector* read,
              const std::function<void(const std::string&)>& warn) {
  const auto origins = [&]<class T>() -> const std::vector<Origin>* {
    return read != nullptr ? &read->origins<T>() : nullptr;
  };
  // Check every reference first: on error nothing has changed.
  std::unordered_map<std::string, int32_t> class_value;
  std::optional<int32_t> global_default;
  const model::PriorityClass* default_class = nullptr;
  for (size_t i = 0; i < objects.priority_classes.size(); ++i) {
    const model::PriorityClass& pc = objects.priority_classes[i];
    class_value.emplace(pc.name, pc.value);
    if (!pc.global_default) continue;
    if (default_class != nullptr) {
      fail_at(origin_of(origins.operator()<model::PriorityClass>(), i), "PriorityClass", pc.name,
              "globalDefault",
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
    const Origin* o = origin_of(origins.operator()<model::Queue>(), i);
    if (q.parent == q.name)
      fail_at(o, "Queue", q.name, "spec.parent", "a queue cannot be its own parent; name another");
    if (!q.parent.empty() && q.parent != "root" && queues.count(q.parent) == 0) {
      fail_at(o, "Queue", q.name, "spec.parent",
              "no Queue " + quote(q.parent) + " is defined; define it or leave parent unset");
    }
  }

  std::unordered_map<std::string, bool> groups;  // key: native
  for (size_t i = 0; i < objects.pod_groups.size(); ++i) {
    const model::PodGroup& g = objects.pod_groups[i];
    const Origin* o = origin_of(origins.operator()<model::PodGroup>(), i);
    groups.emplace(g.key(), g.native);
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
      fail_at(o, "PodGroup", g.key(),
              g.native ? "metadata.annotations[" + std::string(kQueueNameKey) + "]"
                       : std::string("spec.queue"),
              "no Queue " + quote(g.queue) +
                  " is defined; define it (kind: Queue) or use queue \"default\"");
    }
  }

  for (size_t i = 0; i < objects.pods.size(); ++i) {
    const model::Pod& p = objects.pods[i];
    const Origin* o = origin_of(origins.operator()<model::Pod>(), i);
    if (!p.priority_class_name.empty() && !class_exists(p.priority_class_name)) {
      fail_at(o, "Pod", p.key(), "spec.priorityClassName",
              "no PriorityClass " + quote(p.priority_class_name) +
                  " is defined; define it (kind: PriorityClass) or remove priorityClassName");
    }
    if (!p.group_name.empty()) {
      const auto g = groups.find(p.namespace_ + "/" + p.group_name);
      const std::string field =
          p.native_group ? "spec.schedulingGroup.podGroupName" : group_annotation_field();
      // A pod naming a scheduling.k8s.io PodGroup not yet made waits for
      // it, as kube-scheduler's gang plugin makes it wait; Volcano's
      // annotation names a group that must be there.
      if (g == groups.end() && !p.native_group) {
        fail_at(o, "Pod", p.key(), field,
                "no PodGroup " + quote(p.group_name) + " in namespace " + quote(p.namespace_) +
                    "; define it (kind: PodGroup) or remove the annotation");
      }
      if (g != groups.end() && g->second != p.native_group) {
        fail_at(o, "Pod", p.key(), field,
                "names PodGroup " + quote(p.group_name) + ", which is " +
                    (g->second ? "a scheduling.k8s.io PodGroup; name it in "
                                 "spec.schedulingGroup.podGroupName"
                               : "a Volcano PodGroup; name it in the annotation " +
                                     std::string(kGroupNameKey)));
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
    if (read != nullptr) {
      const std::string& cls = p.priority_class_name.empty() && default_class
                                   ? default_class->name
                                   : p.priority_class_name;
      if (read->never_preempt_classes().count(cls) > 0) p.preempt_never = true;
    }
    if (!p.group_name.empty()) continue;

    std::string name = p.name;
    for (int n = 1; groups.count(p.namespace_ + "/" + name) > 0; ++n)
      name = "podgroup-" + p.name + (n > 1 ? "-" + std::to_string(n) : "");
    model::PodGroup g = model::implicit_pod_group(p, std::move(name));
    groups.emplace(g.key(), false);
    p.group_name = g.name;
    objects.pod_groups.push_back(std::move(g));
  }
}

}  // namespace

namespace {

/// Appends what `c` collected to `out`: all or nothing.
void append_collected(Collector& c, model::ClusterObjects& out) {
  // Make room first: the moves below cannot fail, so `out` gets all or nothing.
  model::for_each_list(out, c.objects(),
                       [](auto& to, auto& from) { to.reserve(to.size() + from.size()); });
  model::for_each_list(out, c.objects(), [](auto& to, auto& from) {
    std::move(from.begin(), from.end(), std::back_inserter(to));
  });
}

}  // namespace

void parse_objects(std::string_view text, const std::string& file_name, model::ClusterObjects& out,
                   const FieldChecks& checks) {
  Collector c(&out);
  Parsed parsed = parse_text(text, file_name, checks);
  FieldWarnings warnings(checks);
  warnings.add(parsed);
  warnings.finish();
  c.add(parsed.runs, file_name);
  c.check_unique();
  append_collected(c, out);
}

void decode_objects(const std::vector<input::Document>& docs, std::string_view origin,
                    model::ClusterObjects& out, const FieldChecks& checks) {
  Collector c(&out);
  Parsed parsed = decode_all(docs, origin, checks);
  FieldWarnings warnings(checks);
  warnings.add(parsed);
  warnings.finish();
  c.add(parsed.runs, origin);
  c.check_unique();
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
    c.add(parsed.runs, name);
  }
  warnings.finish();
  c.check_unique();
  complete(c.objects(), &c, checks.warn);
  return std::move(c.objects());
}

void complete_objects(model::ClusterObjects& objects) { complete(objects, nullptr, {}); }

}  // namespace scoria::source
