// The enqueue action: admits Pending PodGroups (phase Pending -> Inqueue), one
// job at a time from the queue that comes first, so that admission follows the
// same queue and job order as allocation (Volcano's enqueue).
#include <scoria/scoria.h>
#include <scoria/scoria.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace {

using scoria::api;
using scoria::log_line;

// A queue with Pending jobs waiting for admission.
struct QueueWork {
  const scoria_queue* queue = nullptr;
  std::string_view name;
  std::vector<const scoria_job*> jobs;  // heap: the job to admit next at front
};

// One run of the action over one session.
class Enqueue {
 public:
  explicit Enqueue(scoria_session* ssn) : ssn_(ssn) {}

  void run() {
    collect();
    log_line(SCORIA_LOG_V3, "try to enqueue pending jobs of ", active_.size(), " queues");
    admit();
  }

 private:
  // Heap order for std::*_heap (a max-heap): `a` sorts below `b` when b goes first.
  bool job_after(const scoria_job* a, const scoria_job* b) const {
    return api().session_job_less(ssn_, b, a) != 0;
  }

  // Groups the Pending jobs of open, existing queues by queue.
  void collect() {
    const size_t queue_count = api().queue_count(ssn_);
    // Queue index -> position in queues_, or -1 while unseen.
    std::vector<int64_t> slot_of(queue_count, -1);
    const auto after = [this](const scoria_job* a, const scoria_job* b) { return job_after(a, b); };

    // Only the jobs it admits or reports on: those still Pending, and
    // those without a queue (Volcano names each one's missing queue).
    for (const scoria_job* job :
         scoria::jobs_where(ssn_, SCORIA_JOBS_PHASE_PENDING | SCORIA_JOBS_WITHOUT_QUEUE)) {
      const scoria_job_info ji = scoria::info(job);
      if (ji.queue == nullptr) {
        log_line(SCORIA_LOG_WARNING, "queue <", scoria::view(ji.queue_name), "> of job <",
                 scoria::view(ji.uid), "> does not exist; job skipped");
        continue;
      }
      if (ji.phase != SCORIA_PHASE_PENDING) continue;

      const scoria_queue_info qi = scoria::info(ji.queue);
      if (qi.index >= queue_count) {
        log_line(SCORIA_LOG_ERROR, "queue <", scoria::view(qi.name), "> of job <",
                 scoria::view(ji.uid), "> has an index out of range; job skipped");
        continue;
      }
      if (qi.open == 0) {
        // A closed queue takes no new jobs.
        log_line(SCORIA_LOG_V4, "queue <", scoria::view(qi.name), "> is not open; job <",
                 scoria::view(ji.uid), "> stays Pending");
        continue;
      }
      if (slot_of[qi.index] < 0) {
        slot_of[qi.index] = static_cast<int64_t>(queues_.size());
        active_.push_back(queues_.size());
        queues_.push_back(QueueWork{ji.queue, scoria::view(qi.name), {}});
      }
      std::vector<const scoria_job*>& jobs = queues_[static_cast<size_t>(slot_of[qi.index])].jobs;
      jobs.push_back(job);
      std::push_heap(jobs.begin(), jobs.end(), after);
    }
  }

  // Takes the first queue's first job until no queue has jobs left. The queue
  // order is asked afresh each round because admission may change it.
  void admit() {
    const auto after = [this](const scoria_job* a, const scoria_job* b) { return job_after(a, b); };
    while (!active_.empty()) {
      size_t best = 0;
      for (size_t i = 1; i < active_.size(); ++i) {
        if (api().session_queue_less(ssn_, queues_[active_[i]].queue,
                                     queues_[active_[best]].queue) != 0) {
          best = i;
        }
      }
      QueueWork& qw = queues_[active_[best]];
      std::pop_heap(qw.jobs.begin(), qw.jobs.end(), after);
      const scoria_job* job = qw.jobs.back();
      qw.jobs.pop_back();
      if (qw.jobs.empty()) active_.erase(active_.begin() + static_cast<std::ptrdiff_t>(best));

      admit_job(job, qw.name);
    }
  }

  void admit_job(const scoria_job* job, std::string_view queue_name) {
    const scoria_job_info ji = scoria::info(job);
    // Without minResources there is nothing to reserve, so no policy is asked.
    if (ji.has_min_resources != 0 && api().session_job_enqueueable(ssn_, job) == 0) {
      log_line(SCORIA_LOG_V4, "job <", scoria::view(ji.uid), "> of queue <", queue_name,
               "> is not enqueueable");
      return;
    }
    api().session_job_enqueued(ssn_, job);
    const scoria_code rc = api().session_job_set_phase(ssn_, job, SCORIA_PHASE_INQUEUE);
    if (rc != SCORIA_OK) {
      log_line(SCORIA_LOG_ERROR, "cannot set job <", scoria::view(ji.uid), "> Inqueue: code ",
               static_cast<int>(rc));
      return;
    }
    log_line(SCORIA_LOG_V3, "job <", scoria::view(ji.uid), "> of queue <", queue_name,
             "> is Inqueue");
  }

  scoria_session* ssn_;
  std::vector<QueueWork> queues_;
  std::vector<size_t> active_;  // positions in queues_ that still have jobs, first seen first
};

// The action takes no arguments; it keeps no state between sessions.
struct Instance {};

scoria_code on_execute(void* /*instance*/, scoria_session* ssn) {
  return scoria::guarded([ssn] { Enqueue(ssn).run(); });
}

const scoria_descriptor kDescriptor = {
    .struct_size = sizeof(scoria_descriptor),
    .abi_major = SCORIA_ABI_VERSION_MAJOR,
    .abi_minor = SCORIA_ABI_VERSION_MINOR,
    .name = "enqueue",
    .kind = SCORIA_KIND_ACTION,
    .flags = SCORIA_FLAG_DECLARES_ARGS,  // Volcano's enqueue takes no arguments
    .version = "1.0.0",
    .description = "Admits Pending PodGroups to Inqueue in queue and job order",
    .on_create = scoria::create_instance<Instance>,
    .on_destroy = scoria::destroy_instance<Instance>,
    .on_session_open = nullptr,
    .on_session_close = nullptr,
    .on_execute = on_execute,
    .args = nullptr,
    .arg_count = 0,
};

}  // namespace

SCORIA_DEFINE_PLUGIN(kDescriptor)
