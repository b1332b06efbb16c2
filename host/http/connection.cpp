#include "http/connection.h"

#include <boost/asio/buffer.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/http/chunk_encode.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>

#include <utility>

#include "log/log.h"

namespace scoria::http::detail {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using tcp = asio::ip::tcp;
using std::chrono::milliseconds;

namespace {

// How long a refused or finished connection is read from after its last
// answer before it is closed.
constexpr milliseconds kLinger{2000};

std::string seconds(milliseconds d) {
  const auto ms = d.count();
  return ms % 1000 == 0 ? std::to_string(ms / 1000) + "s" : std::to_string(ms) + "ms";
}

std::string error_body(std::string_view message) {
  std::string escaped;
  for (const char c : message) {
    if (c == '"' || c == '\\') escaped += '\\';
    escaped += c;
  }
  return "{\"error\":\"" + escaped + "\"}\n";
}

}  // namespace

template <class Socket>
BasicConnection<Socket>::BasicConnection(Socket socket, std::shared_ptr<asio::ssl::context> tls,
                                         std::shared_ptr<const Router> router,
                                         std::shared_ptr<const ServerOptions> limits)
    : tls_(std::move(tls)),
      socket_(std::move(socket)),
      deadline_(socket_.get_executor()),
      router_(std::move(router)),
      limits_(std::move(limits)) {
  boost::system::error_code ec;
  peer_ = lowest().remote_endpoint(ec);
}

template <class Socket>
void BasicConnection<Socket>::start() {
  if constexpr (kTls) {
    // The handshake counts against the time to send the headers.
    arm(limits_->header_timeout, Phase::Idle);
    auto self = this->shared_from_this();
    socket_.async_handshake(asio::ssl::stream_base::server, [self](beast::error_code ec) {
      if (ec) {
        self->shutdown();
        return;
      }
      self->wait_request(true);
    });
  } else {
    wait_request(true);
  }
}

template <class Socket>
void BasicConnection<Socket>::refuse_busy() {
  if constexpr (kTls) {
    // Not worth a handshake: the client sees the connection closed.
    shutdown();
    return;
  }
  static constexpr std::string_view kBusy =
      "HTTP/1.1 503 Service Unavailable\r\nServer: scoria\r\nContent-Type: application/json\r\n"
      "Retry-After: 1\r\nConnection: close\r\nContent-Length: 51\r\n\r\n"
      "{\"error\":\"too many connections; try again later\"}\n";
  arm(milliseconds(1000), Phase::Respond);
  auto self = this->shared_from_this();
  asio::async_write(socket_, asio::buffer(kBusy.data(), kBusy.size()),
                    [self](beast::error_code, size_t) { self->shutdown(); });
}

template <class Socket>
void BasicConnection<Socket>::shutdown() {
  if (closed_) return;
  closed_ = true;
  deadline_.cancel();
  boost::system::error_code ec;
  lowest().shutdown(tcp::socket::shutdown_both, ec);
  lowest().close(ec);
}

// --- requests ----------------------------------------------------------------

template <class Socket>
void BasicConnection<Socket>::wait_request(bool first) {
  parser_.emplace();
  parser_->header_limit(static_cast<std::uint32_t>(limits_->header_limit));
  parser_->body_limit(limits_->body_limit);
  if (first || buffer_.size() > 0) {
    arm(limits_->header_timeout, Phase::Header);
    read_header();
    return;
  }
  // Kept alive: the idle timeout runs until the next request's first byte.
  arm(limits_->idle_timeout, Phase::Idle);
  auto self = this->shared_from_this();
  socket_.async_read_some(buffer_.prepare(4096), [self](beast::error_code ec, size_t n) {
    if (ec) {
      self->shutdown();
      return;
    }
    self->buffer_.commit(n);
    self->arm(self->limits_->header_timeout, Phase::Header);
    self->read_header();
  });
}

template <class Socket>
void BasicConnection<Socket>::read_header() {
  auto self = this->shared_from_this();
  bhttp::async_read_header(socket_, buffer_, *parser_,
                           [self](beast::error_code ec, size_t) { self->on_header(ec); });
}

template <class Socket>
void BasicConnection<Socket>::on_header(beast::error_code ec) {
  // A read that completed as the deadline passed still counts.
  if (timed_out_ && ec) {
    // A client that sent nothing is simply closed; one that began a
    // request is told why it ends.
    if (parser_->got_some() || buffer_.size() > 0) {
      fail(408, "request headers not received within " + seconds(limits_->header_timeout));
    } else {
      shutdown();
    }
    return;
  }
  if (ec) {
    if (!refused_for(ec)) shutdown();
    return;
  }
  // Which host a request names must not be ambiguous (Go's net/http, which
  // kube-apiserver answers with, refuses the same).
  if (parser_->get().count(bhttp::field::host) > 1) {
    fail(400, "too many Host headers");
    return;
  }
  if (parser_->is_done()) {
    on_body({});
    return;
  }
  arm(limits_->body_timeout, Phase::Body);
  auto self = this->shared_from_this();
  bhttp::async_read(socket_, buffer_, *parser_,
                    [self](beast::error_code error, size_t) { self->on_body(error); });
}

template <class Socket>
void BasicConnection<Socket>::on_body(beast::error_code ec) {
  if (timed_out_ && ec) {
    fail(408, "request body not received within " + seconds(limits_->body_timeout));
    return;
  }
  if (ec) {
    if (!refused_for(ec)) shutdown();
    return;
  }
  disarm();
  handle();
}

template <class Socket>
bool BasicConnection<Socket>::refused_for(beast::error_code ec) {
  if (ec.category() != bhttp::make_error_code(bhttp::error::bad_method).category()) return false;
  if (ec == bhttp::error::end_of_stream || ec == bhttp::error::partial_message) return false;
  if (ec == bhttp::error::body_limit) {
    fail(413, "request body exceeds " + std::to_string(limits_->body_limit) + " bytes");
  } else if (ec == bhttp::error::header_limit) {
    fail(431, "request headers exceed " + std::to_string(limits_->header_limit) + " bytes");
  } else {
    fail(400, "malformed HTTP request: " + ec.message());
  }
  return true;
}

template <class Socket>
void BasicConnection<Socket>::fail(unsigned status, std::string message) {
  send(make_response(status, error_body(message), "application/json", 11, false));
}

template <class Socket>
void BasicConnection<Socket>::handle() {
  Request req = parser_->release();
  Reply reply;
  try {
    reply = (*router_)(req, peer_);
  } catch (const std::exception& e) {
    log::write(log::kError, "http", std::string("handler failed: ") + e.what());
    reply.response = make_response(500, error_body("internal error"), "application/json");
  }
  reply.response.version(req.version());
  if (reply.on_stream) {
    start_stream(std::move(reply));
    return;
  }
  if (reply.on_defer) {
    // The request's version and keep-alive wait with it; the write timeout
    // starts when the answer comes.
    disarm();
    reply.on_defer([self = this->shared_from_this(), version = req.version(),
                    keep_alive = req.keep_alive()](Response res) {
      res.version(version);
      res.keep_alive(keep_alive && res.keep_alive());
      self->send(std::move(res));
    });
    return;
  }
  reply.response.keep_alive(req.keep_alive() && reply.response.keep_alive());
  send(std::move(reply.response));
}

template <class Socket>
void BasicConnection<Socket>::send(Response res) {
  if (closed_) return;
  arm(limits_->body_timeout, Phase::Respond);
  auto msg = std::make_shared<Response>(std::move(res));
  auto self = this->shared_from_this();
  bhttp::async_write(socket_, *msg, [self, msg](beast::error_code ec, size_t) {
    if (ec || self->closed_) {
      self->shutdown();
      return;
    }
    if (!msg->keep_alive()) {
      self->linger();
      return;
    }
    self->wait_request(false);
  });
}

template <class Socket>
void BasicConnection<Socket>::linger() {
  if constexpr (kTls) {
    // TLS's close_notify, then the close; the deadline bounds a peer that
    // never answers it.
    arm(kLinger, Phase::Linger);
    auto self = this->shared_from_this();
    socket_.async_shutdown([self](beast::error_code) { self->shutdown(); });
    return;
  }
  boost::system::error_code ec;
  lowest().shutdown(tcp::socket::shutdown_send, ec);
  if (ec) {
    shutdown();
    return;
  }
  arm(kLinger, Phase::Linger);
  drain();
}

template <class Socket>
void BasicConnection<Socket>::drain() {
  auto self = this->shared_from_this();
  socket_.async_read_some(asio::buffer(scratch_), [self](beast::error_code ec, size_t) {
    if (ec) {
      self->shutdown();
      return;
    }
    self->drain();
  });
}

// --- streams -------------------------------------------------------------------

template <class Socket>
void BasicConnection<Socket>::write(std::string chunk) {
  if (!streaming_ || closed_ || closing_) return;
  pending_bytes_ += chunk.size();
  pending_.push_back(std::move(chunk));
  if (pending_.size() == 1 && header_sent_) write_next_chunk();
}

template <class Socket>
void BasicConnection<Socket>::close() {
  if (closed_) return;
  if (!streaming_) {
    shutdown();
    return;
  }
  if (closing_) return;
  closing_ = true;
  if (pending_.empty() && header_sent_) write_last_chunk();
}

// A streamed answer: headers with chunked encoding, then the handler's
// chunks as it writes them.
template <class Socket>
void BasicConnection<Socket>::start_stream(Reply reply) {
  streaming_ = true;
  header_ = std::make_shared<bhttp::response<bhttp::empty_body>>(reply.response.result(),
                                                                 reply.response.version());
  for (const auto& field : reply.response) header_->set(field.name_string(), field.value());
  header_->chunked(true);
  header_->keep_alive(false);
  serializer_ = std::make_shared<bhttp::response_serializer<bhttp::empty_body>>(*header_);
  arm(limits_->idle_timeout, Phase::Stream);
  auto self = this->shared_from_this();
  bhttp::async_write_header(socket_, *serializer_, [self](beast::error_code ec, size_t) {
    if (ec || self->closed_) {
      self->shutdown();
      return;
    }
    self->disarm();
    self->header_sent_ = true;
    self->watch_peer();
    if (!self->pending_.empty()) {
      self->write_next_chunk();
    } else if (self->closing_) {
      self->write_last_chunk();
    }
  });
  reply.on_stream(self);
}

// A streaming client sends nothing more; a read ends when it goes away.
template <class Socket>
void BasicConnection<Socket>::watch_peer() {
  auto self = this->shared_from_this();
  socket_.async_read_some(asio::buffer(scratch_), [self](beast::error_code ec, size_t) {
    if (ec) {
      self->shutdown();
      return;
    }
    self->watch_peer();
  });
}

template <class Socket>
void BasicConnection<Socket>::write_next_chunk() {
  if (closed_) return;
  // A client that takes nothing for the idle timeout is gone or stuck.
  arm(limits_->idle_timeout, Phase::Stream);
  auto self = this->shared_from_this();
  asio::async_write(socket_, bhttp::make_chunk(asio::buffer(pending_.front())),
                    [self](beast::error_code ec, size_t) {
                      if (ec || self->closed_) {
                        self->shutdown();
                        return;
                      }
                      self->pending_bytes_ -= self->pending_.front().size();
                      self->pending_.pop_front();
                      if (!self->pending_.empty()) {
                        self->write_next_chunk();
                        return;
                      }
                      self->disarm();
                      if (self->closing_) self->write_last_chunk();
                    });
}

template <class Socket>
void BasicConnection<Socket>::write_last_chunk() {
  if (closed_) return;
  arm(limits_->idle_timeout, Phase::Stream);
  auto self = this->shared_from_this();
  asio::async_write(socket_, bhttp::make_chunk_last(),
                    [self](beast::error_code, size_t) { self->shutdown(); });
}

// --- deadlines -------------------------------------------------------------------

template <class Socket>
void BasicConnection<Socket>::arm(milliseconds after, Phase phase) {
  phase_ = phase;
  timed_out_ = false;
  deadline_.expires_after(after);
  auto self = this->shared_from_this();
  deadline_.async_wait([self](beast::error_code ec) {
    if (!ec) self->on_deadline();
  });
}

template <class Socket>
void BasicConnection<Socket>::disarm() {
  deadline_.cancel();
}

template <class Socket>
void BasicConnection<Socket>::on_deadline() {
  // A wait that completed just before a re-arm is stale.
  if (closed_ || deadline_.expiry() > asio::steady_timer::clock_type::now()) return;
  if (phase_ == Phase::Header || phase_ == Phase::Body) {
    // The pending read ends with operation_aborted and sees timed_out_.
    timed_out_ = true;
    boost::system::error_code ec;
    lowest().cancel(ec);
    return;
  }
  shutdown();
}

template class BasicConnection<tcp::socket>;
template class BasicConnection<TlsSocket>;

}  // namespace scoria::http::detail
