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
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "http/server.h"
#include "store/object_store.h"

namespace scoria::serve {

class WatchHub {
 public:
  /// An object as the API serves it (apiVersion, kind, resourceVersion
  /// set), as text and parsed, left by the write that stored it so that
  /// watchers need not parse the log entry again.
  struct Served {
    std::string kind;
    std::string key;
    // The object, or as much of it as selectors read (api::selectable_part).
    std::shared_ptr<const nlohmann::json> object;
    std::string text;
  };
  /// What one watcher is sent of a log entry: a line (with its newline), or
  /// nothing when the entry is not for it. `served` is the entry's object
  /// as served, when its writer left it (see note()); else null.
  using Render =
      std::function<std::optional<std::string>(const store::Event&, const Served* served)>;
  /// A BOOKMARK line saying the watcher has seen everything up to a version.
  using Bookmark = std::function<std::string(int64_t version)>;
  using Clock = std::chrono::steady_clock;

  /// What all watchers together may have queued and not yet taken, unless
  /// told otherwise (each also has its stream's own limit).
  static constexpr size_t kDefaultMemory = size_t{256} << 20;

  explicit WatchHub(store::ObjectStore& store, size_t memory = kDefaultMemory)
      : store_(store), memory_(memory) {}

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
  /// Closes the watchers whose deadline has passed, and gives memory the
  /// watchers freed back to the system.
  void expire(Clock::time_point now);
  /// Leaves the served form of the object written at `version`, for the
  /// next pump (which forgets it after: it is sent by then).
  void note(int64_t version, Served served);
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
  void fell_behind(Watcher& w, const std::string& why);
  /// Bytes the open watchers have queued, all together.
  size_t queued() const;

  store::ObjectStore& store_;
  size_t memory_;
  // What the watchers have queued, as of the pump under way (counted at its
  // start, added to as it writes).
  size_t queued_ = 0;
  // Until when expire() gives freed memory back (see fell_behind), and when
  // it last did.
  Clock::time_point trim_until_{};
  Clock::time_point trimmed_{};
  std::vector<Watcher> watchers_;
  // By version; cleared by pump(). An entry's kind and key are checked
  // against the log's: a version handed out in a group that failed to
  // commit is never mistaken for another object.
  std::unordered_map<int64_t, Served> served_;
};

}  // namespace scoria::serve
