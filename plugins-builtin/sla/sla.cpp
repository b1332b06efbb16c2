// The sla plugin (Volcano's sla): a job may wait at most its service-level
// waiting time. The time comes from the PodGroup's annotation
// volcano.sh/sla-waiting-time (or the older sla-waiting-time), else from the
// plugin's sla-waiting-time argument; a job with neither has no SLA. Jobs
// are ordered by when their waiting time runs out, those with an SLA before
// those without; once it has run out the job is voted through enqueue and
// counts as pipelined in allocate, so that the cluster holds resources for
// it instead of letting later, smaller jobs take them.
#include <scoria/scoria.h>
#include <scoria/scoria.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace {

using scoria::api;
using scoria::log_line;

constexpr std::string_view kArgument = "sla-waiting-time";
// The annotation Volcano's API defines, then the key its scheduler also reads.
constexpr std::string_view kAnnotations[] = {"volcano.sh/sla-waiting-time", "sla-waiting-time"};
constexpr int64_t kNoDeadline = std::numeric_limits<int64_t>::max();

int64_t to_ms(std::chrono::nanoseconds d) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
}

struct Instance {
  explicit Instance(const scoria_args* args) {
    // Declared with a positive minimum, so the host has refused anything
    // else: Volcano ignores a non-positive time with a warning.
    if (const auto d = scoria::arg_duration(args, kArgument)) global_ms = to_ms(*d);
  }

  std::optional<int64_t> global_ms;
  // Per session: when each job's waiting time runs out (ms since the epoch),
  // by job index; kNoDeadline when it has no SLA.
  std::vector<int64_t> deadline;
  int64_t now = 0;
  // Malformed annotations already reported, so each is logged once, not
  // every session. Bounded: cleared when it grows large.
  std::set<std::string> reported;
};

// The job's own waiting time, if its annotation gives a positive one; a
// malformed or non-positive one is reported on the job and ignored, as
// Volcano does, so the global time applies.
std::optional<int64_t> job_waiting_ms(Instance& self, const scoria_job* job) {
  for (const std::string_view key : kAnnotations) {
    scoria_str value{};
    if (api().job_annotation(job, scoria::str(key), &value) != SCORIA_OK) continue;
    const std::string_view text = scoria::view(value);
    const auto d = scoria::parse_go_duration(text);
    if (d && d->count() > 0) return to_ms(*d);
    const std::string uid(scoria::view(scoria::info(job).uid));
    if (self.reported.size() > 10000) self.reported.clear();
    if (self.reported.insert(uid + "\n" + std::string(key) + "\n" + std::string(text)).second)
      log_line(
          SCORIA_LOG_WARNING, "PodGroup ", uid, ": annotation ", key, "=\"", text,
          "\" is not a positive duration (write e.g. \"1h30m\"); ",
          self.global_ms ? "the plugin's sla-waiting-time applies" : "the job has no waiting time");
  }
  return std::nullopt;
}

int64_t deadline_of(const Instance& self, const scoria_job* job) {
  const uint32_t i = scoria::info(job).index;
  return i < self.deadline.size() ? self.deadline[i] : kNoDeadline;
}

int on_job_order(void* user_data, const scoria_job* l, const scoria_job* r) {
  const auto& self = *static_cast<const Instance*>(user_data);
  const int64_t ld = deadline_of(self, l), rd = deadline_of(self, r);
  if (ld == rd) return 0;
  return ld < rd ? -1 : 1;
}

// Past its waiting time a job is let through; before it, or without an SLA,
// the plugin has no say.
scoria_vote on_overdue(void* user_data, const scoria_job* job) {
  const auto& self = *static_cast<const Instance*>(user_data);
  const int64_t d = deadline_of(self, job);
  return d != kNoDeadline && self.now >= d ? SCORIA_VOTE_PERMIT : SCORIA_VOTE_ABSTAIN;
}

scoria_code on_session_open(void* instance, scoria_session* ssn, scoria_hooks* hooks) {
  if (hooks == nullptr || hooks->struct_size < sizeof(scoria_hooks)) return SCORIA_INVALID_ARGUMENT;
  auto& self = *static_cast<Instance*>(instance);
  return scoria::guarded([&] {
    self.now = scoria::now_ms(ssn);
    const size_t n = api().job_count(ssn);
    self.deadline.assign(n, kNoDeadline);
    for (size_t i = 0; i < n; ++i) {
      const scoria_job* job = api().job_at(ssn, i);
      std::optional<int64_t> wait = job_waiting_ms(self, job);
      if (!wait) wait = self.global_ms;
      if (!wait) continue;
      const scoria_job_info ji = scoria::info(job);
      if (ji.index < n) self.deadline[ji.index] = ji.creation_ms + *wait;
    }
    hooks->user_data = instance;
    hooks->on_job_order = on_job_order;
    hooks->on_job_enqueueable = on_overdue;
    hooks->on_job_pipelined = on_overdue;
  });
}

constexpr scoria_arg_spec kArgs[] = {
    scoria::with_min(scoria::declare_arg(SCORIA_ARG_DURATION, "sla-waiting-time", nullptr,
                                         "how long a job may wait before it is enqueued and "
                                         "resources are held for it (Go duration, e.g. 1h30m); "
                                         "a PodGroup's volcano.sh/sla-waiting-time annotation "
                                         "overrides it; unset: only annotated jobs have an SLA"),
                     1e-9),
};

const scoria_descriptor kDescriptor = {
    .struct_size = sizeof(scoria_descriptor),
    .abi_major = SCORIA_ABI_VERSION_MAJOR,
    .abi_minor = SCORIA_ABI_VERSION_MINOR,
    .name = "sla",
    .kind = SCORIA_KIND_PLUGIN,
    .flags = SCORIA_FLAG_DECLARES_ARGS,
    .version = "1.0.0",
    .description = "Jobs past their SLA waiting time go first and are enqueued and held for",
    .on_create = scoria::create_instance<Instance>,
    .on_destroy = scoria::destroy_instance<Instance>,
    .on_session_open = on_session_open,
    .on_session_close = nullptr,
    .on_execute = nullptr,
    .args = kArgs,
    .arg_count = std::size(kArgs),
};

}  // namespace

SCORIA_DEFINE_PLUGIN(kDescriptor)
