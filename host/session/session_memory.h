// What sessions keep between them (SessionMemory), so that the next one
// writes again only what changed: the records, what the last session
// touched of them (TouchJournal), what its close wrote (ClosedEntries).
// session_reuse.cpp, kept_removal.cpp and closed_entries.cpp use them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "session/equivalence_cache.h"
#include "session/exact_sums.h"
#include "session/node_task_memory.h"
#include "session/records.h"

namespace scoria::session {

/// What a session touched of the records (Session::touch), and what each
/// touched record was at the session's open, noted at its first touch: the
/// next session keeping the records puts those back, then writes again what
/// changed (session_reuse.cpp).
struct TouchJournal {
  /// Values a job adds to its queue's sums (Session::QueueJobSums): jobs,
  /// then allocated, request, elastic, inqueue minimum, inqueue and running
  /// unallocated, each `dims` values.
  static constexpr size_t kSumVectors = 6;

  std::vector<uint64_t> job_bits, node_bits;  // touched
  std::vector<uint32_t> jobs;                 // touched, in the order touched
  // For each touched job: its first entry in `places`, where its tasks'
  // (node, status) follow; its allocated (dims values); its share of its
  // queue's sums (kSumVectors * dims values).
  std::vector<uint32_t> task_at;
  std::vector<std::pair<int32_t, uint32_t>> places;
  std::vector<double> allocated, sums;
  // The nodes touched, in order: each one's task list (one after another in
  // `lists`, ending at list_end[i]) and its idle, used, releasing and
  // pipelined (4 * dims values).
  std::vector<uint32_t> nodes, lists, list_end;
  std::vector<double> node_sums;

  void clear(size_t job_count, size_t node_count) {
    job_bits.assign((job_count + 63) / 64, 0);
    node_bits.assign((node_count + 63) / 64, 0);
    for (auto* v : {&jobs, &task_at, &nodes, &lists, &list_end}) v->clear();
    places.clear();
    allocated.clear();
    sums.clear();
    node_sums.clear();
  }
};

/// What the last close wrote, for the next one (session/closed_entries.cpp):
/// a close handed back the outcome its predecessor wrote writes again only
/// the entries of the jobs whose records were written again or touched, or
/// whose entry depends on more than the record (`volatile_jobs`), and takes
/// the others' part out of and into its queues' sums. That is exact only
/// while every value summed is a whole number and every sum is below 2^53
/// (`exact`), as for the sums kept with the records.
struct ClosedEntries {
  uint64_t session = 0;  // which session of this memory closed (SessionMemory::sessions)
  bool exact = false;
  size_t jobs = 0, dims = 0;
  /// Each queue's request, then inqueue, sums (2 * dims values a queue).
  std::vector<double> sums;
  /// Per job, at its position then: its queue (or -1), and its part of
  /// that queue's request and inqueue sums (2 * dims values).
  std::vector<int32_t> queue_of;
  std::vector<double> added;
  /// Jobs with tasks not placed or readiness a plugin decides: their entry
  /// depends on the session (fit errors, votes), so each close writes it.
  std::vector<uint32_t> volatile_jobs;
  /// drf's total the shares were divided by.
  std::vector<double> share_total;
};

/// What sessions keep between them, held by their owner (the scheduler),
/// one session at a time. The arrays keep their memory, so a session does
/// not take tens of megabytes from the system and fault them in again (on
/// S2, 57 MB a session). And the records themselves are kept, with what the
/// session changed in them: the next session over the next refresh of the
/// same kept snapshot writes again only the jobs and nodes that changed or
/// that the last session touched (session_reuse.cpp).
struct SessionMemory {
  NodeTaskMemory node_tasks;  // before nodes: their lists live in it
  std::vector<Job> jobs;
  std::vector<Task> tasks;
  std::vector<SubJob> sub_jobs;
  std::vector<Node> nodes;
  std::vector<double> arena;
  // Session members kept with the records (Session::keep_records).
  std::vector<uint64_t> pending_task_jobs, phase_pending_jobs, queueless_jobs;
  std::vector<uint32_t> featured, topology_jobs, sub_job_members;
  std::deque<std::string> made_keys;
  std::vector<uint32_t> renumbered;  // take_out_jobs' scratch, for its storage
  EquivalenceCache equivalence;      // for its storage (reset by each session)
  // What the last session's records were at its open: its placed tasks, its
  // queues' allocated (queue after queue), the records it touched, and, if
  // it summed its jobs by queue at open (`sums_kept`), those sums (jobs
  // counted apart) to be kept too.
  std::vector<uint32_t> opening_placed;
  std::vector<double> opening_queue_allocated;
  TouchJournal touched;
  std::vector<double> opening_queue_sums;
  std::vector<uint32_t> opening_queue_jobs;
  bool sums_kept = false;
  // The snapshot they were written from (Snapshot::Changes) and by which
  // session object (the records point at it); `kept` while they may serve.
  uint64_t writer = 0, version = 0, layout = 0;
  const void* session = nullptr;
  bool kept = false;
  // What the records' values are, for whether their sums are exact.
  ExactSums exact;
  /// Set by tests: a session that kept records compares them with ones
  /// written anew, and a close that kept entries its outcome with one
  /// written whole; each throws std::logic_error naming the first difference.
  bool verify = false;
  ClosedEntries closed;
  uint64_t sessions = 0;  // opened over this memory
};

}  // namespace scoria::session
