// The resourcequota plugin (Volcano's): a Pending job is enqueued only if
// its PodGroup's minResources fit within every ResourceQuota of its
// namespace, counting the jobs this session has enqueued there already, so
// that one session does not admit together what the quota holds only one of.
// A refused job keeps the reason (which quota, what was asked, used and
// allowed) on its PodGroup. A job without minResources, or in a namespace
// without quotas, is permitted, as in Volcano.
#include <scoria/scoria.h>
#include <scoria/scoria.hpp>

#include <exception>
#include <optional>

#include "namespace_quotas.h"

namespace {

using scoria::api;
using scoria::log_line;

struct Instance {
  std::optional<resourcequota::SessionQuotas> quotas;  // this session's
  scoria_session* ssn = nullptr;
};

Instance& self(void* user_data) { return *static_cast<Instance*>(user_data); }

scoria_vote on_job_enqueueable(void* user_data, const scoria_job* job) {
  Instance& s = self(user_data);
  try {
    const std::optional<std::string> why = s.quotas->refusal(job);
    if (!why) return SCORIA_VOTE_PERMIT;
    log_line(SCORIA_LOG_V4, "job <", scoria::view(scoria::info(job).uid),
             "> is not enqueueable: ", *why);
    api().session_job_set_fit_error(s.ssn, job, scoria::str(*why));
    return SCORIA_VOTE_REJECT;
  } catch (const std::exception& e) {
    // Fail closed: a job whose quotas could not be weighed waits.
    scoria::report_error(e.what());
    return SCORIA_VOTE_REJECT;
  }
}

void on_job_enqueued(void* user_data, const scoria_job* job) {
  Instance& s = self(user_data);
  try {
    s.quotas->enqueued(job);
  } catch (const std::exception& e) {
    scoria::report_error(e.what());
  }
}

scoria_code on_session_open(void* instance, scoria_session* ssn, scoria_hooks* hooks) {
  if (hooks == nullptr || hooks->struct_size < sizeof(scoria_hooks)) return SCORIA_INVALID_ARGUMENT;
  Instance& s = self(instance);
  s.ssn = ssn;
  const scoria_code rc = scoria::guarded([&] { s.quotas.emplace(ssn); });
  if (rc != SCORIA_OK) return rc;
  log_line(SCORIA_LOG_V4, "", s.quotas->size(), " ResourceQuotas in the session");
  hooks->user_data = instance;
  hooks->on_job_enqueueable = on_job_enqueueable;
  hooks->on_job_enqueued = on_job_enqueued;
  return SCORIA_OK;
}

void on_session_close(void* instance, scoria_session* /*ssn*/) {
  Instance& s = self(instance);
  s.quotas.reset();
  s.ssn = nullptr;
}

const scoria_descriptor kDescriptor = {
    .struct_size = sizeof(scoria_descriptor),
    .abi_major = SCORIA_ABI_VERSION_MAJOR,
    .abi_minor = SCORIA_ABI_VERSION_MINOR,
    .name = "resourcequota",
    .kind = SCORIA_KIND_PLUGIN,
    .flags = SCORIA_FLAG_DECLARES_ARGS,  // Volcano's resourcequota takes no arguments
    .version = "1.0.0",
    .description = "Enqueues a job only if its minResources fit its namespace's ResourceQuotas",
    .on_create = scoria::create_instance<Instance>,
    .on_destroy = scoria::destroy_instance<Instance>,
    .on_session_open = on_session_open,
    .on_session_close = on_session_close,
    .on_execute = nullptr,
    .args = nullptr,
    .arg_count = 0,
};

}  // namespace

SCORIA_DEFINE_PLUGIN(kDescriptor)
