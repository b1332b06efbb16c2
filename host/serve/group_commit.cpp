#include "serve/group_commit.h"

#include <boost/asio/post.hpp>

#include "api/status.h"
#include "log/log.h"
#include "serve/watch_hub.h"

namespace scoria::serve {

void GroupCommit::open() {
  store_.hold();
  if (posted_) return;
  posted_ = true;
  boost::asio::post(io_, [this] { flush(); });
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

void GroupCommit::flush() {
  posted_ = false;
  if (!store_.holding()) return;
  std::vector<std::shared_ptr<Waiting>> waiting = std::move(waiting_);
  waiting_.clear();
  bool committed = false;
  try {
    store_.flush();
    ++groups_;
    committed = true;
  } catch (const store::StoreError& e) {
    log::write(log::kError, "serve",
               "a group of " + std::to_string(waiting.size()) +
                   " writes could not be committed, and each was answered 500: " + e.what());
    const std::string body =
        api::ApiError(500, "InternalError", std::string("the write was not stored: ") + e.what())
            .status()
            .dump();
    for (auto& w : waiting)
      w->response = http::make_response(500, body, "application/json", w->response.version());
  }
  for (auto& w : waiting) {
    w->ready = true;
    deliver(*w);
  }
  watchers_.pump();
  if (committed && on_commit_) on_commit_();
}

}  // namespace scoria::serve
