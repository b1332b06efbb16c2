#include "serve/outcome_recorder.h"

#include <boost/asio/post.hpp>

#include <algorithm>
#include <cstdio>
#include <utility>

#include "log/log.h"

namespace scoria::serve {

struct OutcomeRecorder::Recording {
  cache::ClusterSource* source = nullptr;
  Session session;
  Done done;
  size_t next = 0;  // the first bind not yet recorded
  size_t pieces = 0;
  double record_ms = 0;
};

void OutcomeRecorder::record(cache::ClusterSource& source, Session session, cycle::Outcome outcome,
                             Done done) {
  last_ = std::move(outcome);
  auto rec = std::make_shared<Recording>();
  rec->source = &source;
  rec->session = std::move(session);
  rec->done = std::move(done);
  write_piece(rec);
}

void OutcomeRecorder::write_piece(const std::shared_ptr<Recording>& rec) {
  const Clock::time_point start = Clock::now();
  bool done = true;
  std::optional<std::string> error;
  try {
    // The session's writes are committed on their own, before the cache
    // takes them: a group's failure must not leave the cache ahead.
    commits_.flush();
    const size_t to = std::min(last_.binds.size(), rec->next + kPiece);
    done = to == last_.binds.size();
    // Most sessions are one piece: the outcome as it is, not a copy.
    const bool whole = rec->next == 0 && done;
    const cycle::Outcome piece = whole ? cycle::Outcome() : piece_of(last_, rec->next, to);
    for (const double ms : rec->source->record(whole ? last_ : piece, cache_.change()))
      metrics_.observe_task_bound(ms);
    rec->next = to;
    ++rec->pieces;
    watchers_.pump();
    if (done) {
      metrics_.observe_session(rec->session.timings);
      for (const auto& [plugin, errors] : rec->session.sched->plugin_errors())
        metrics_.set_plugin_errors(plugin, static_cast<double>(errors));
      const size_t decided = last_.binds.size() + last_.evictions.size();
      if (decided > 0) metrics_.count_store_writes("session", static_cast<double>(decided));
      store_.compact_events(kEventsKept);
    }
  } catch (const std::exception& e) {
    error = e.what();
    done = true;
  }
  const Clock::duration spent = Clock::now() - start;
  rec->session.loop_busy += spent;
  rec->record_ms += std::chrono::duration<double, std::milli>(spent).count();
  if (!done) {
    boost::asio::post(io_, [this, rec] { write_piece(rec); });
    return;
  }
  log_session(*rec);
  rec->done(rec->session.loop_busy, error);
}

cycle::Outcome OutcomeRecorder::piece_of(const cycle::Outcome& outcome, size_t from, size_t to) {
  cycle::Outcome piece;
  piece.dims = outcome.dims;
  piece.binds.assign(outcome.binds.begin() + static_cast<std::ptrdiff_t>(from),
                     outcome.binds.begin() + static_cast<std::ptrdiff_t>(to));
  if (to == outcome.binds.size()) {
    piece.pipelined = outcome.pipelined;
    piece.evictions = outcome.evictions;
    piece.pod_groups = outcome.pod_groups;
    piece.queues = outcome.queues;
    piece.unschedulable_tasks = outcome.unschedulable_tasks;
  }
  return piece;
}

void OutcomeRecorder::log_session(const Recording& rec) const {
  if (!log::enabled(3)) return;
  const auto fixed = [](double ms) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f", ms);
    return std::string(text);
  };
  const Session& s = rec.session;
  std::string actions;
  for (const auto& [name, ms] : s.timings.actions_ms) actions += " " + name + " " + fixed(ms);
  log::write(3, "serve",
             "session: " + std::to_string(last_.binds.size()) + " binds, " +
                 std::to_string(last_.evictions.size()) + " evictions; ms: refresh " +
                 fixed(s.refresh_ms) + ", snapshot " + fixed(s.snapshot_ms) + ", open " +
                 fixed(s.timings.open_ms) + (s.timings.kept_records ? " (kept)" : "") + "," +
                 actions + ", close " + fixed(s.timings.close_ms) + ", record " +
                 fixed(rec.record_ms) + " in " + std::to_string(rec.pieces) +
                 (rec.pieces == 1 ? " piece" : " pieces"));
}

}  // namespace scoria::serve
