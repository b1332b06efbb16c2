// The extender plugin (Volcano's extender): a policy that runs out of
// process, in any language, behind HTTP. Each configured verb
// (extender.<verb>Verb) is POSTed as JSON to extender.urlPrefix + "/" +
// verb, with the bodies and answers of Volcano's argument.go; a verb left
// out is never called and its hook is not registered.
//
// Calls are synchronous, each bounded by extender.httpTimeout (connect,
// write and read together), over one keep-alive connection per session.
// The hooks are declared serial: the host calls them from its session
// thread only, so the one connection needs no lock.
//
// When a call fails (no connection, timeout, a status other than 200, an
// answer that is not the JSON Volcano's structs decode):
//   extender.ignorable true   the verb counts as no opinion: a predicate
//                             passes, a score is 0, a vote abstains, a
//                             queue is not overused, a job is ready; but
//                             preemptable and reclaimable name no victim
//                             (as Volcano: its tier then names none);
//   extender.ignorable false  the check fails, as in Volcano: a predicate
//                             refuses the node, a vote rejects (no victims,
//                             not enqueued), a queue is overused, a job is
//                             not ready, a score is an error (0).
// Each failure is logged once per session and verb. Once the extender
// cannot be reached (or has timed out) it is not called again in that
// session, so a dead extender costs one timeout per session rather than one
// per (task, node); a non-ignorable failed session-open verb likewise fails
// every check of the session without calling.
#include <scoria/scoria.h>
#include <scoria/scoria.hpp>

#include "http_client.h"
#include "request_bodies.h"
#include "responses.h"
#include "settings.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <iterator>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace {

using scoria::api;
using scoria::log_line;
using scoria::str;
using scoria::view;
namespace ext = scoria_extender;
using ext::Verb;

constexpr size_t kMaxBody = size_t{10} << 20;  // Volcano's maxBodySize
constexpr std::string_view kManaged = "extender.managedResources";
// Distinct predicate messages interned as reasons; past it, one general
// reason (the host keeps every interned text for its lifetime).
constexpr size_t kMaxReasons = 256;

#define SCORIA_EXTENDER_VERB_ARG(name, help) \
  scoria::declare_arg(SCORIA_ARG_STRING, name, "", help "; empty: never called")

constexpr scoria_arg_spec kArgs[] = {
    scoria::declare_arg(SCORIA_ARG_STRING, "extender.urlPrefix", nullptr,
                        "the extender's address, http://HOST[:PORT][/PATH]; each verb is POSTed "
                        "to it + \"/\" + the verb"),
    scoria::with_min(scoria::declare_arg(SCORIA_ARG_DURATION, "extender.httpTimeout", "1s",
                                         "bound on each call (connect, write and read)"),
                     0.001),
    SCORIA_EXTENDER_VERB_ARG("extender.onSessionOpenVerb",
                             "path told of each session's jobs, nodes and queues at open"),
    SCORIA_EXTENDER_VERB_ARG("extender.onSessionCloseVerb", "path told when a session closes"),
    SCORIA_EXTENDER_VERB_ARG("extender.predicateVerb", "path asked whether a task fits a node"),
    SCORIA_EXTENDER_VERB_ARG("extender.prioritizeVerb", "path asked to score nodes for a task"),
    SCORIA_EXTENDER_VERB_ARG("extender.preemptableVerb", "path asked which tasks may be preempted"),
    SCORIA_EXTENDER_VERB_ARG("extender.reclaimableVerb", "path asked which tasks may be reclaimed"),
    SCORIA_EXTENDER_VERB_ARG("extender.queueOverusedVerb",
                             "path asked whether a queue is overused"),
    SCORIA_EXTENDER_VERB_ARG("extender.jobEnqueueableVerb",
                             "path asked to vote on enqueueing a job"),
    SCORIA_EXTENDER_VERB_ARG("extender.jobEnqueuedVerb", "path told that a job was enqueued"),
    SCORIA_EXTENDER_VERB_ARG("extender.jobReadyVerb", "path asked whether a job is ready"),
    SCORIA_EXTENDER_VERB_ARG("extender.allocateFuncVerb", "path told of each allocated task"),
    SCORIA_EXTENDER_VERB_ARG("extender.deallocateFuncVerb", "path told of each deallocated task"),
    scoria::declare_arg(SCORIA_ARG_BOOL, "extender.ignorable", "false",
                        "true: a failed call counts as no opinion; false: it fails the check"),
    scoria::declare_arg(SCORIA_ARG_LIST, "extender.managedResources", nullptr,
                        "resource names; when given, only pods requesting or limiting one of "
                        "them are sent to the task verbs"),
};

#undef SCORIA_EXTENDER_VERB_ARG

std::string arg_text(const scoria_args* args, std::string_view key) {
  return args != nullptr ? scoria::arg_string(args, key).value_or("") : "";
}

// A list argument arrives as "a,b" text or as items KEY.0, KEY.1, ...
ext::ResourceNames managed_resources(const scoria_args* args) {
  ext::ResourceNames out;
  if (args == nullptr) return out;
  const auto add = [&](std::string_view text) {
    size_t pos = 0;
    while (pos <= text.size()) {
      size_t comma = text.find(',', pos);
      if (comma == std::string_view::npos) comma = text.size();
      std::string_view item = text.substr(pos, comma - pos);
      while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
      while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
      if (!item.empty()) out.emplace(item);
      pos = comma + 1;
    }
  };
  const std::string prefix = std::string(kManaged) + ".";
  const size_t n = api().args_count(args);
  for (size_t i = 0; i < n; ++i) {
    const std::string_view key = view(api().args_key_at(args, i));
    if (key == kManaged || key.starts_with(prefix)) add(arg_text(args, key));
  }
  return out;
}

struct Instance {
  explicit Instance(const scoria_args* args) {
    for (size_t v = 0; v < ext::kVerbCount; ++v)
      verbs[v] = arg_text(args, ext::verb_argument(static_cast<Verb>(v)));
    ignorable = args != nullptr && scoria::arg_bool(args, "extender.ignorable", false);
    managed = managed_resources(args);
    const auto d =
        args != nullptr ? scoria::arg_duration(args, "extender.httpTimeout") : std::nullopt;
    timeout =
        std::chrono::duration_cast<std::chrono::milliseconds>(d.value_or(std::chrono::seconds(1)));
    if (timeout.count() < 1) timeout = std::chrono::milliseconds(1);
    const std::string url = arg_text(args, "extender.urlPrefix");
    const bool any_verb =
        std::any_of(verbs.begin(), verbs.end(), [](const std::string& s) { return !s.empty(); });
    if (url.empty()) {
      if (any_verb) throw std::runtime_error("extender.urlPrefix is required when a verb is set");
      return;
    }
    std::string error;
    std::optional<ext::Endpoint> ep = ext::parse_url_prefix(url, error);
    if (!ep) throw std::runtime_error("extender.urlPrefix \"" + url + "\": " + error);
    client.emplace(std::move(*ep), timeout, kMaxBody);
  }

  bool configured(Verb v) const { return client && !verbs[static_cast<size_t>(v)].empty(); }

  // --- per session -------------------------------------------------------

  void open(const scoria_session* s) {
    ssn = s;
    bodies.emplace(s);
    failures.fill(0);
    down.clear();
    interest.clear();
  }

  void close() {
    for (size_t v = 0; v < ext::kVerbCount; ++v)
      if (failures[v] > 1)
        log_line(SCORIA_LOG_V2, ext::verb_argument(static_cast<Verb>(v)), " failed ", failures[v],
                 " times this session");
    if (client) client->close();
    bodies.reset();
    ssn = nullptr;
  }

  // Records a failed call; the first of each verb in a session is logged.
  void fail(Verb v, std::string_view why) {
    if (failures[static_cast<size_t>(v)]++ > 0) return;
    log_line(SCORIA_LOG_WARNING, ext::verb_argument(v), " \"", verbs[static_cast<size_t>(v)],
             "\" at ", client->endpoint().host, ":", client->endpoint().port, " failed: ", why,
             ignorable ? "; counted as no opinion (extender.ignorable)"
                       : "; the check fails (extender.ignorable is false)",
             down.empty() ? "" : "; the extender is not called again this session");
  }

  // POSTs `body` to the verb's path; the response body, or nullopt after
  // recording the failure.
  std::optional<std::string> call(Verb v, std::string_view body) {
    if (!down.empty()) {
      ++failures[static_cast<size_t>(v)];
      return std::nullopt;
    }
    ext::HttpResult r = client->post(verbs[static_cast<size_t>(v)], body);
    if (!r.transport_ok) {
      down = r.error;
      fail(v, r.error);
      return std::nullopt;
    }
    if (r.status != 200) {
      fail(v, "HTTP status " + std::to_string(r.status));
      return std::nullopt;
    }
    return std::move(r.body);
  }

  // Calls the verb and decodes the answer with `parse`; nullopt on failure.
  template <class Parse>
  auto ask(Verb v, std::string_view body, Parse parse)
      -> decltype(parse(std::string_view{}, std::declval<std::string&>())) {
    const std::optional<std::string> answer = call(v, body);
    if (!answer) return std::nullopt;
    std::string error;
    auto decoded = parse(*answer, error);
    if (!decoded) fail(v, "malformed answer: " + error);
    return decoded;
  }

  // Volcano's IsInterested, parsed once per task and session.
  bool interested(const scoria_task* t) {
    if (managed.empty()) return true;
    const uint32_t index = scoria::info(t).index;
    if (index >= interest.size()) interest.resize(index + 1, -1);
    if (interest[index] < 0) {
      const nlohmann::json pod = nlohmann::json::parse(view(api().task_object_json(t)), nullptr,
                                                       /*allow_exceptions=*/false);
      interest[index] = ext::is_interested(managed, pod) ? 1 : 0;
    }
    return interest[index] == 1;
  }

  uint32_t reason(std::string_view message) {
    const auto it = reasons.find(std::string(message));
    if (it != reasons.end()) return it->second;
    if (reasons.size() >= kMaxReasons) {
      if (general_reason == 0)
        general_reason = api().reason_intern(str("node(s) were refused by the extender"));
      return general_reason;
    }
    const uint32_t id = api().reason_intern(str(message));
    reasons.emplace(message, id);
    return id;
  }

  ext::VerbPaths verbs;
  bool ignorable = false;
  ext::ResourceNames managed;
  std::chrono::milliseconds timeout{1000};
  std::optional<ext::HttpClient> client;
  std::unordered_map<std::string, uint32_t> reasons;
  uint32_t general_reason = 0;
  uint32_t failed_reason = 0;

  const scoria_session* ssn = nullptr;
  std::optional<ext::RequestBodies> bodies;
  std::array<size_t, ext::kVerbCount> failures{};
  std::string down;              // why calls stopped this session; empty while they go on
  std::vector<int8_t> interest;  // per task index: -1 not yet known, 0 no, 1 yes
};

Instance& self(void* user_data) { return *static_cast<Instance*>(user_data); }

// --- hooks -----------------------------------------------------------------

scoria_code on_predicate(void* user_data, const scoria_task* task, const scoria_node* node,
                         uint32_t* reason) {
  Instance& in = self(user_data);
  if (!in.interested(task)) return SCORIA_OK;
  const auto answer =
      in.ask(Verb::kPredicate, in.bodies->predicate(task, node), ext::parse_predicate);
  if (!answer) {
    if (in.ignorable) return SCORIA_OK;
    if (in.failed_reason == 0)
      in.failed_reason = api().reason_intern(str("node(s) were refused: the extender failed"));
    *reason = in.failed_reason;
    return SCORIA_UNSCHEDULABLE_AND_UNRESOLVABLE;
  }
  if (answer->fits) return SCORIA_OK;
  *reason = in.reason(answer->message);
  // Preempting could help only where the extender says it could.
  return answer->code == ext::kCodeUnschedulable || answer->code == ext::kCodeWait
             ? SCORIA_UNSCHEDULABLE
             : SCORIA_UNSCHEDULABLE_AND_UNRESOLVABLE;
}

scoria_code on_node_order_batch(void* user_data, const scoria_task* task,
                                const scoria_node* const* nodes, size_t count, double* scores) {
  Instance& in = self(user_data);
  std::fill_n(scores, count, 0.0);
  if (!in.interested(task)) return SCORIA_OK;
  const auto answer =
      in.ask(Verb::kPrioritize, in.bodies->prioritize(task, {nodes, count}), ext::parse_prioritize);
  if (!answer) {
    if (in.ignorable) return SCORIA_OK;
    scoria::report_error("extender prioritize failed; its scores count as 0");
    return SCORIA_ERROR;
  }
  for (size_t i = 0; i < count; ++i) {
    const auto it = answer->find(view(scoria::info(nodes[i]).name));
    if (it != answer->end()) scores[i] = it->second;
  }
  return SCORIA_OK;
}

scoria_vote victims(Instance& in, Verb verb, const scoria_task* evictor,
                    const scoria_task* const* candidates, size_t count, uint8_t* selected) {
  if (!in.interested(evictor)) return SCORIA_VOTE_ABSTAIN;
  const auto answer =
      in.ask(verb, in.bodies->victims(evictor, {candidates, count}), ext::parse_victims);
  // Volcano answers a failed call with no victims whether ignorable (Permit)
  // or not (Reject): either way the tier names none and the next tier
  // decides, so even an ignorable extender never lets its tier's other
  // plugins evict without it.
  if (!answer) return SCORIA_VOTE_PERMIT;
  if (answer->status == 0) return SCORIA_VOTE_ABSTAIN;
  const std::unordered_set<std::string_view> chosen(answer->victim_uids.begin(),
                                                    answer->victim_uids.end());
  for (size_t i = 0; i < count; ++i)
    if (chosen.contains(view(scoria::info(candidates[i]).uid))) selected[i] = 1;
  return SCORIA_VOTE_PERMIT;
}

scoria_vote on_preemptable(void* user_data, const scoria_task* preemptor,
                           const scoria_task* const* candidates, size_t count, uint8_t* selected) {
  return victims(self(user_data), Verb::kPreemptable, preemptor, candidates, count, selected);
}

scoria_vote on_reclaimable(void* user_data, const scoria_task* reclaimer,
                           const scoria_task* const* candidates, size_t count, uint8_t* selected) {
  return victims(self(user_data), Verb::kReclaimable, reclaimer, candidates, count, selected);
}

scoria_vote on_job_enqueueable(void* user_data, const scoria_job* job) {
  Instance& in = self(user_data);
  const auto vote = in.ask(Verb::kJobEnqueueable, in.bodies->job_request(job), ext::parse_vote);
  if (!vote) return in.ignorable ? SCORIA_VOTE_ABSTAIN : SCORIA_VOTE_REJECT;
  return *vote > 0 ? SCORIA_VOTE_PERMIT : *vote < 0 ? SCORIA_VOTE_REJECT : SCORIA_VOTE_ABSTAIN;
}

void on_job_enqueued(void* user_data, const scoria_job* job) {
  Instance& in = self(user_data);
  (void)in.ask(Verb::kJobEnqueued, in.bodies->job_request(job), ext::parse_event);
}

int on_overused(void* user_data, const scoria_queue* queue) {
  Instance& in = self(user_data);
  const auto over =
      in.ask(Verb::kQueueOverused, in.bodies->queue_request(queue), ext::parse_overused);
  if (!over) return in.ignorable ? 0 : 1;
  return *over ? 1 : 0;
}

int on_job_ready(void* user_data, const scoria_job* job) {
  Instance& in = self(user_data);
  const auto ready = in.ask(Verb::kJobReady, in.bodies->job_request(job), ext::parse_ready);
  if (!ready) return in.ignorable ? 1 : 0;
  return *ready ? 1 : 0;
}

// Volcano sets the event's error, which undoes the allocation; the ABI's
// events cannot refuse, so an error is logged (once per session) only.
void event(Instance& in, Verb verb, const scoria_task* task) {
  if (!in.interested(task)) return;
  const auto message = in.ask(verb, in.bodies->event(task), ext::parse_event);
  if (message && !message->empty()) in.fail(verb, "the extender says: " + *message);
}

void on_allocate(void* user_data, const scoria_task* task) {
  event(self(user_data), Verb::kAllocateFunc, task);
}
void on_deallocate(void* user_data, const scoria_task* task) {
  event(self(user_data), Verb::kDeallocateFunc, task);
}

// --- lifecycle -------------------------------------------------------------

scoria_code on_session_open(void* instance, scoria_session* ssn, scoria_hooks* hooks) {
  return scoria::guarded([&]() -> scoria_code {
    Instance& in = self(instance);
    if (!in.client) return SCORIA_OK;
    in.open(ssn);
    if (in.configured(Verb::kOnSessionOpen)) {
      const std::optional<std::string> ok =
          in.call(Verb::kOnSessionOpen, in.bodies->session_open());
      // Volcano then registers nothing; here every check of the session
      // fails instead, without calling, so that nothing gets through
      // unchecked.
      if (!ok && !in.ignorable && in.down.empty()) in.down = "the session-open verb failed";
    }
    hooks->user_data = &in;
    if (in.configured(Verb::kPredicate)) hooks->on_predicate = on_predicate;
    if (in.configured(Verb::kPrioritize)) hooks->on_node_order_batch = on_node_order_batch;
    if (in.configured(Verb::kPreemptable)) hooks->on_preemptable = on_preemptable;
    if (in.configured(Verb::kReclaimable)) hooks->on_reclaimable = on_reclaimable;
    if (in.configured(Verb::kJobEnqueueable)) hooks->on_job_enqueueable = on_job_enqueueable;
    if (in.configured(Verb::kJobEnqueued)) hooks->on_job_enqueued = on_job_enqueued;
    if (in.configured(Verb::kQueueOverused)) hooks->on_overused = on_overused;
    if (in.configured(Verb::kJobReady)) hooks->on_job_ready = on_job_ready;
    if (in.configured(Verb::kAllocateFunc)) hooks->on_allocate = on_allocate;
    if (in.configured(Verb::kDeallocateFunc)) hooks->on_deallocate = on_deallocate;
    return SCORIA_OK;
  });
}

void on_session_close(void* instance, scoria_session* /*ssn*/) {
  (void)scoria::guarded([&] {
    Instance& in = self(instance);
    if (!in.client || in.ssn == nullptr) return;
    if (in.configured(Verb::kOnSessionClose)) (void)in.call(Verb::kOnSessionClose, "{}");
    in.close();
  });
}

const scoria_descriptor kDescriptor = {
    .struct_size = sizeof(scoria_descriptor),
    .abi_major = SCORIA_ABI_VERSION_MAJOR,
    .abi_minor = SCORIA_ABI_VERSION_MINOR,
    .name = "extender",
    .kind = SCORIA_KIND_PLUGIN,
    .flags = SCORIA_FLAG_DECLARES_ARGS | SCORIA_FLAG_SERIAL_HOOKS,
    .version = "1.0.0",
    .description =
        "Volcano's HTTP extender: predicates, scores, votes and events answered by a "
        "server out of process",
    .on_create = scoria::create_instance<Instance>,
    .on_destroy = scoria::destroy_instance<Instance>,
    .on_session_open = on_session_open,
    .on_session_close = on_session_close,
    .on_execute = nullptr,
    .args = kArgs,
    .arg_count = std::size(kArgs),
};

}  // namespace

SCORIA_DEFINE_PLUGIN(kDescriptor)
