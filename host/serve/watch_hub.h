// The open watch streams and where each stands in the store's change log.
// After every write the hub sends each stream the entries it has not seen,
// one JSON object per line (newline-delimited JSON), in version order. A
// stream whose client falls behind by more than its buffer is ended with a
// last line naming the version to resume from.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "http/server.h"
#include "store/object_store.h"

namespace scoria::serve {

class WatchHub {
 public:
  /// What one watcher is sent of a log entry: a line (with its newline), or
  /// nothing when the entry is not for it.
  using Render = std::function<std::optional<std::string>(const store::Event&)>;
  /// A BOOKMARK line saying the watcher has seen everything up to a version.
  using Bookmark = std::function<std::string(int64_t version)>;
  using Clock = std::chrono::steady_clock;

  explicit WatchHub(store::ObjectStore& store) : store_(store) {}

  /// Starts sending `stream` the entries after version `after`, every entry
  /// as one JSON line (the local API's own watch).
  void add(std::shared_ptr<http::Stream> stream, int64_t after);
  /// Starts sending `stream` what `render` makes of each entry after
  /// `after`, until `deadline` (a watch's timeoutSeconds) if one is given.
  void add(std::shared_ptr<http::Stream> stream, int64_t after, Render render,
           std::optional<Clock::time_point> deadline, Bookmark bookmark = {});
  /// Sends a bookmark to each watcher that asked for them (allowWatchBookmarks)
  /// and had none for `every`, and to each whose deadline comes within it, so
  /// that a client resumes from a recent version even when what it watches
  /// rarely changes (the log moves on with other kinds' changes).
  void bookmark(Clock::time_point now, Clock::duration every);
  /// Closes the watchers whose deadline has passed.
  void expire(Clock::time_point now);
  /// Sends every open stream what is new; forgets closed ones.
  void pump();
  void close_all();
  size_t size() const { return watchers_.size(); }

 private:
  struct Watcher {
    std::shared_ptr<http::Stream> stream;
    int64_t cursor;
    Render render;
    std::optional<Clock::time_point> deadline;
    Bookmark bookmark;
    Clock::time_point bookmarked{};
    int64_t bookmarked_version = -1;
  };
  void send(Watcher& w);
  void fell_behind(Watcher& w);

  store::ObjectStore& store_;
  std::vector<Watcher> watchers_;
};

}  // namespace scoria::serve
