// Group commit for the API's writes. A write request's changes join the
// store's open write group and its answer waits; the group is committed by
// a handler posted behind the requests already received, so one sync covers
// every write that arrived together, and then the answers go out and the
// watchers see the changes. Nothing is acknowledged before it is durable,
// and nothing uncommitted is read by anyone else: every other use of the
// store (a read request, a session's refresh or record, reaping) flushes
// first. A commit that fails answers each waiting write 500: none of the
// group's changes were kept.
#pragma once

#include <boost/asio/io_context.hpp>

#include <functional>
#include <memory>
#include <vector>

#include "http/server.h"
#include "store/object_store.h"

namespace scoria::serve {

class WatchHub;

class GroupCommit {
 public:
  GroupCommit(boost::asio::io_context& io, store::ObjectStore& store, WatchHub& watchers)
      : io_(io), store_(store), watchers_(watchers) {}

  /// Opens the write group for a write about to be made, and arranges its
  /// commit once the requests at hand are handled.
  void open();
  /// `reply` to a request that wrote in the open group, sent once the group
  /// is committed (500 if it cannot be); as it is when no group is open.
  http::Reply defer(http::Reply reply);
  /// Commits the open group, if any, sends the answers that waited for it
  /// and sends the watchers what it wrote.
  void flush();
  /// Called after each group that held writes is committed.
  void on_commit(std::function<void()> f) { on_commit_ = std::move(f); }
  /// Writes made in groups, and groups committed, since the start.
  size_t writes() const { return writes_; }
  size_t groups() const { return groups_; }

 private:
  // One deferred answer: the response, and how to send it once the
  // connection has said (it says so as the handler returns).
  struct Waiting {
    http::Response response;
    http::Respond respond;
    bool ready = false;
  };
  static void deliver(Waiting& w);

  boost::asio::io_context& io_;
  store::ObjectStore& store_;
  WatchHub& watchers_;
  std::vector<std::shared_ptr<Waiting>> waiting_;
  std::function<void()> on_commit_;
  bool posted_ = false;
  size_t writes_ = 0;
  size_t groups_ = 0;
};

}  // namespace scoria::serve
