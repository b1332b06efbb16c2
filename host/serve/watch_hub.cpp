#include "serve/watch_hub.h"

#include <malloc.h>

#include <nlohmann/json.hpp>

namespace scoria::serve {

namespace {
// Events read from the store per step: small enough that a step of large
// objects does not overshoot a stream's buffer by much.
constexpr size_t kBatch = 100;
// Served objects kept for the next pump, at most.
constexpr size_t kServedKept = 10000;
// How long after a watcher is cut off the heap is trimmed: past the
// longest its connection may hold what it had queued (the idle timeout).
constexpr auto kTrimFor = std::chrono::seconds(90);
}  // namespace

void WatchHub::add(std::shared_ptr<http::Stream> stream, int64_t after) {
  add(
      std::move(stream), after,
      [](const store::Event& e, const Served*) -> std::optional<std::string> {
        nlohmann::json line = {{"type", e.type},
                               {"kind", e.kind},
                               {"key", e.key},
                               {"resourceVersion", e.resource_version},
                               {"object", nlohmann::json::parse(e.json, nullptr, false)}};
        return line.dump() + "\n";
      },
      std::nullopt);
}

void WatchHub::add(std::shared_ptr<http::Stream> stream, int64_t after, Render render,
                   std::optional<Clock::time_point> deadline, Bookmark bookmark) {
  watchers_.push_back({std::move(stream), after, std::move(render), deadline, std::move(bookmark),
                       Clock::now(), after});
  queued_ = queued();
  send(watchers_.back());
}

void WatchHub::bookmark(Clock::time_point now, Clock::duration every) {
  queued_ = queued();
  for (Watcher& w : watchers_) {
    if (!w.bookmark || !w.stream->open()) continue;
    const bool due = now - w.bookmarked >= every;
    const bool closing = w.deadline && *w.deadline - now <= every;
    // Nothing new to say: the client has this version already.
    if (!(due || closing) || w.cursor == w.bookmarked_version) continue;
    send(w);  // everything up to the cursor goes first
    if (!w.stream->open()) continue;
    w.stream->write(w.bookmark(w.cursor));
    w.bookmarked = now;
    w.bookmarked_version = w.cursor;
  }
}

void WatchHub::expire(Clock::time_point now) {
  for (Watcher& w : watchers_)
    if (w.deadline && *w.deadline <= now) w.stream->close();
  std::erase_if(watchers_, [](const Watcher& w) { return !w.stream->open(); });
  // A watcher cut off frees what it had queued once its client reads it or
  // goes (at the latest at the idle timeout): glibc keeps freed memory, so
  // it is given back, at most once a second, for a while after a cut-off.
  if (now < trim_until_ && now - trimmed_ >= std::chrono::seconds(1)) {
    malloc_trim(0);
    trimmed_ = now;
  }
}

size_t WatchHub::queued() const {
  size_t total = 0;
  for (const Watcher& w : watchers_)
    if (w.stream->open()) total += w.stream->backlog();
  return total;
}

void WatchHub::send(Watcher& w) {
  // A write group still open is not yet durable and may yet be rolled back:
  // watchers see it after its commit, which pumps.
  if (store_.holding()) return;
  for (;;) {
    if (!w.stream->open()) return;
    if (w.stream->backlog() >= w.stream->backlog_limit()) {
      fell_behind(w, "this watch fell more than " + std::to_string(w.stream->backlog_limit()) +
                         " bytes behind");
      return;
    }
    // All watchers together are bounded too: past the budget, one that has
    // not taken what it was sent is cut off (as the API server cuts a slow
    // watcher), and the ones keeping up go on.
    if (queued_ >= memory_ && w.stream->backlog() > 0) {
      fell_behind(w, "the watches' memory (" + std::to_string(memory_) +
                         " bytes, --watch-memory) is used up and this watch was behind");
      return;
    }
    const std::vector<store::Event> events = store_.events_since(w.cursor, kBatch);
    if (events.empty()) return;
    std::string chunk;
    for (const store::Event& e : events) {
      const Served* served = nullptr;
      if (const auto it = served_.find(e.resource_version);
          it != served_.end() && it->second.kind == e.kind && it->second.key == e.key)
        served = &it->second;
      if (auto line = w.render(e, served)) chunk += *line;
      w.cursor = e.resource_version;
    }
    if (!chunk.empty()) {
      queued_ += chunk.size();
      w.stream->write(std::move(chunk));
    }
  }
}

// A client that does not keep up would hold the server's memory: its stream
// ends, once what is queued is sent, with a line naming the version it has
// everything up to, to watch again from.
void WatchHub::fell_behind(Watcher& w, const std::string& why) {
  const std::string message =
      why + "; watch again with resourceVersion=" + std::to_string(w.cursor);
  nlohmann::json line = {
      {"type", "ERROR"},
      {"resourceVersion", w.cursor},
      {"object",
       {{"kind", "Status"}, {"status", "Failure"}, {"reason", "TooSlow"}, {"message", message}}}};
  w.stream->write(line.dump() + "\n");
  w.stream->close();
  trim_until_ = Clock::now() + kTrimFor;
}

void WatchHub::note(int64_t version, Served served) {
  if (watchers_.empty()) return;
  // Bounded should nothing pump (a write outside any group, say).
  if (served_.size() >= kServedKept) served_.clear();
  served_.insert_or_assign(version, std::move(served));
}

void WatchHub::pump() {
  std::erase_if(watchers_, [](const Watcher& w) { return !w.stream->open(); });
  queued_ = queued();
  for (Watcher& w : watchers_) send(w);
  served_.clear();
}

void WatchHub::close_all() {
  for (Watcher& w : watchers_) w.stream->close();
  watchers_.clear();
}

}  // namespace scoria::serve
