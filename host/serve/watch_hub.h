// The open watch streams and where each stands in the store's change log.
// After every write the hub sends each stream the entries it has not seen,
// one JSON object per line (newline-delimited JSON), in version order. A
// stream whose client falls behind by more than its buffer is ended with a
// last line naming the version to resume from.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "http/server.h"
#include "store/object_store.h"

namespace scoria::serve {

class WatchHub {
 public:
  explicit WatchHub(store::ObjectStore& store) : store_(store) {}

  /// Starts sending `stream` the entries after version `after`.
  void add(std::shared_ptr<http::Stream> stream, int64_t after);
  /// Sends every open stream what is new; forgets closed ones.
  void pump();
  void close_all();
  size_t size() const { return watchers_.size(); }

 private:
  struct Watcher {
    std::shared_ptr<http::Stream> stream;
    int64_t cursor;
  };
  void send(Watcher& w);
  void fell_behind(Watcher& w);

  store::ObjectStore& store_;
  std::vector<Watcher> watchers_;
};

}  // namespace scoria::serve
