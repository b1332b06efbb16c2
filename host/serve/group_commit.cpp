#include "serve/group_commit.h"

#include <boost/asio/post.hpp>

#include "api/status.h"
#include "log/log.h"
#include "serve/watch_hub.h"

namespace scoria::serve {

GroupCommit::GroupCommit(boost::asio::io_context& io, store::ObjectStore& store, WatchHub& watchers)
    : io_(io), store_(store), watchers_(watchers), thread_([this] { sync_loop(); }) {}

GroupCommit::~GroupCommit() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_one();
  thread_.join();
}

void GroupCommit::open() {
  store_.hold();
  if (posted_) return;
  posted_ = true;
  boost::asio::post(io_, [this] {
    commit();
    if (syncing_.empty()) return;
    {
      const std::lock_guard lock(mutex_);
      wanted_ = committed_;
    }
    wake_.notify_one();
  });
}

http::Reply GroupCommit::defer(http::Reply reply) {
  if (!store_.holding() || reply.on_stream) return reply;
  ++writes_;
  auto waiting = std::make_shared<Waiting>();
  waiting->response = std::move(reply.response);
  waiting_.push_back(waiting);
  http::Reply deferred;
  deferred.on_defer = [waiting](http::Respond respond) {
    waiting->respond = std::move(respond);
    if (waiting->ready) deliver(*waiting);
  };
  return deferred;
}

void GroupCommit::deliver(Waiting& w) {
  if (!w.respond) return;  // the connection has not taken it yet
  http::Respond respond = std::move(w.respond);
  w.respond = nullptr;
  respond(std::move(w.response));
}

void GroupCommit::answer(std::vector<std::shared_ptr<Waiting>>& waiting, int code,
                         const std::string& message) {
  if (code != 0) {
    const std::string body = api::ApiError(code, "InternalError", message).status().dump();
    for (auto& w : waiting)
      w->response = http::make_response(code, body, "application/json", w->response.version());
  }
  for (auto& w : waiting) {
    w->ready = true;
    deliver(*w);
  }
}

void GroupCommit::commit() {
  posted_ = false;
  if (!store_.holding()) return;
  std::vector<std::shared_ptr<Waiting>> waiting = std::move(waiting_);
  waiting_.clear();
  try {
    store_.flush(store::ObjectStore::Sync::Later);
  } catch (const store::StoreError& e) {
    log::write(log::kError, "serve",
               "a group of " + std::to_string(waiting.size()) +
                   " writes could not be committed, and each was answered 500: " + e.what());
    answer(waiting, 500, std::string("the write was not stored: ") + e.what());
    return;
  }
  ++groups_;
  syncing_.push_back({++committed_, std::move(waiting)});
}

void GroupCommit::flush() {
  commit();
  if (syncing_.empty()) return;
  std::optional<std::string> error;
  try {
    store_.sync();
  } catch (const store::StoreError& e) {
    error = e.what();
  }
  durable(committed_, error);
}

void GroupCommit::durable(uint64_t seq, const std::optional<std::string>& error) {
  if (syncing_.empty() || syncing_.front().seq > seq) return;  // flush() answered them
  size_t writes = 0;
  while (!syncing_.empty() && syncing_.front().seq <= seq) {
    Group& group = syncing_.front();
    writes += group.waiting.size();
    if (error)
      answer(group.waiting, 500,
             "the write was committed but the disk did not confirm it: " + *error);
    else
      answer(group.waiting, 0, "");
    syncing_.pop_front();
  }
  if (error)
    log::write(log::kError, "serve",
               std::to_string(writes) + " writes were committed but could not be synced to disk, " +
                   "and each was answered 500: " + *error);
  watchers_.pump();
  if (on_commit_) on_commit_();
}

void GroupCommit::sync_loop() {
  uint64_t synced = 0;
  for (;;) {
    uint64_t target = 0;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || wanted_ > synced; });
      if (stopping_) return;
      target = wanted_;
    }
    // Every group up to `target` was committed before this sync began.
    std::optional<std::string> error;
    try {
      store_.sync();
    } catch (const store::StoreError& e) {
      error = e.what();
    }
    synced = target;
    boost::asio::post(io_, [this, target, error] { durable(target, error); });
  }
}

}  // namespace scoria::serve
