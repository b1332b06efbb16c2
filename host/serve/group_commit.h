// Group commit for the API's writes. A write request's changes join the
// store's open write group and its answer waits; the group is committed by
// a handler posted behind the requests already received, and its write-ahead
// log synced to disk by a thread of its own, so that the loop goes on with
// the next requests meanwhile and one sync covers every group committed
// before it began. Once synced, the answers go out and the watchers see the
// changes. Nothing is acknowledged before it is durable, and nothing that is
// not yet durable is read by anyone else: every other use of the store (a
// read request, a session's refresh or record, reaping) flushes first, which
// commits and syncs on the spot. A commit that fails answers each waiting
// write 500: none of the group's changes were kept.
#pragma once

#include <boost/asio/io_context.hpp>

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "http/server.h"
#include "store/object_store.h"

namespace scoria::serve {

class WatchHub;

class GroupCommit {
 public:
  GroupCommit(boost::asio::io_context& io, store::ObjectStore& store, WatchHub& watchers);
  /// Stops the sync thread; flush() first, or answers still waiting are lost.
  ~GroupCommit();
  GroupCommit(const GroupCommit&) = delete;
  GroupCommit& operator=(const GroupCommit&) = delete;

  /// Opens the write group for a write about to be made, and arranges its
  /// commit once the requests at hand are handled.
  void open();
  /// `reply` to a request that wrote in the open group, sent once the group
  /// is durable (500 if it cannot be); as it is when no group is open.
  http::Reply defer(http::Reply reply);
  /// Commits the open group, if any, and syncs every group committed so
  /// far, here and now; sends the answers that waited for them and sends
  /// the watchers what they wrote.
  void flush();
  /// Called after groups that held writes are durable.
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
  // A committed group whose sync has not yet returned.
  struct Group {
    uint64_t seq = 0;
    std::vector<std::shared_ptr<Waiting>> waiting;
  };
  static void deliver(Waiting& w);
  static void answer(std::vector<std::shared_ptr<Waiting>>& waiting, int code,
                     const std::string& message);
  /// Commits the open group, leaving its sync for later.
  void commit();
  /// Answers the groups up to `seq`, now synced (or 500: `error`).
  void durable(uint64_t seq, const std::optional<std::string>& error);
  void sync_loop();

  boost::asio::io_context& io_;
  store::ObjectStore& store_;
  WatchHub& watchers_;
  std::vector<std::shared_ptr<Waiting>> waiting_;  // the open group's
  std::deque<Group> syncing_;
  uint64_t committed_ = 0;  // the sequence number of the last group committed
  std::function<void()> on_commit_;
  bool posted_ = false;
  size_t writes_ = 0;
  size_t groups_ = 0;
  // Shared with the sync thread: the last group it is asked to sync.
  std::mutex mutex_;
  std::condition_variable wake_;
  uint64_t wanted_ = 0;
  bool stopping_ = false;
  std::thread thread_;  // last: started once everything else is
};

}  // namespace scoria::serve
