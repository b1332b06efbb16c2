// Writes a session's decisions back (binds, evictions, PodGroup and queue
// statuses) through the cluster's source, into the store or the API server
// and into the cache. A piece at a time: each piece is one transaction on a
// turn of the loop of its own, and requests are answered between pieces, so
// a session that bound thousands of pods does not hold the API for the whole
// of its record. Lives on the loop, which owns it alone; the outcome it
// holds is the one the API's queue statuses and the dumps read.
#pragma once

#include <boost/asio/io_context.hpp>

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "cache/cluster_source.h"
#include "cycle/outcome.h"
#include "metrics/scheduler_metrics.h"
#include "scheduler/scheduler.h"
#include "serve/group_commit.h"
#include "serve/shared_cache.h"
#include "serve/watch_hub.h"
#include "store/object_store.h"

namespace scoria::serve {

class OutcomeRecorder {
 public:
  using Clock = std::chrono::steady_clock;
  /// Binds written per piece: a few milliseconds of the loop at a time.
  static constexpr size_t kPiece = 256;
  /// Log entries the store keeps for watchers to resume from; older
  /// resumes must relist.
  static constexpr size_t kEventsKept = 200000;

  OutcomeRecorder(boost::asio::io_context& io, GroupCommit& commits, SharedCache& cache,
                  WatchHub& watchers, store::ObjectStore& store, metrics::SchedulerMetrics& metrics)
      : io_(io),
        commits_(commits),
        cache_(cache),
        watchers_(watchers),
        store_(store),
        metrics_(metrics) {}
  OutcomeRecorder(const OutcomeRecorder&) = delete;
  OutcomeRecorder& operator=(const OutcomeRecorder&) = delete;

  /// A session to record, and what it cost before its record.
  struct Session {
    std::shared_ptr<scheduler::Scheduler> sched;  // for its plugins' error counts
    scheduler::SessionTimings timings;
    double refresh_ms = 0, snapshot_ms = 0;  // for the -v 3 line
    Clock::duration loop_busy{};             // the loop's time on it so far
  };
  /// Called on the loop once the record ends: the loop's whole time on the
  /// session, and the error that stopped the record (the rest of the
  /// outcome is not written; the next session decides again).
  using Done =
      std::function<void(Clock::duration loop_busy, const std::optional<std::string>& error)>;

  /// Writes `outcome` (its explanation already taken) through `source`,
  /// which outlives the record, then calls `done`. One record at a time:
  /// the next session starts after `done`.
  void record(cache::ClusterSource& source, Session session, cycle::Outcome outcome, Done done);

  /// The last session's outcome (while it is recorded, in part written).
  const cycle::Outcome& last() const { return last_; }

  /// Binds [from, to) of `outcome`; the last piece carries the rest of it.
  static cycle::Outcome piece_of(const cycle::Outcome& outcome, size_t from, size_t to);

 private:
  struct Recording;
  void write_piece(const std::shared_ptr<Recording>& rec);
  // One line per session at -v 3 (where Volcano logs a session's start and
  // end): where its time went, on the loop and on the session thread.
  void log_session(const Recording& rec) const;

  boost::asio::io_context& io_;
  GroupCommit& commits_;
  SharedCache& cache_;
  WatchHub& watchers_;
  store::ObjectStore& store_;
  metrics::SchedulerMetrics& metrics_;
  cycle::Outcome last_;
};

}  // namespace scoria::serve
