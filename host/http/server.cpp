#include "http/server.h"

#include <boost/asio/buffer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/chunk_encode.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/serializer.hpp>
#include <boost/beast/http/write.hpp>

#include <deque>
#include <optional>
#include <utility>
#include <vector>

#include "log/log.h"

namespace scoria::http {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using tcp = asio::ip::tcp;

Response make_response(unsigned status, std::string body, std::string_view content_type,
                       unsigned version, bool keep_alive) {
  Response res{static_cast<bhttp::status>(status), version};
  res.set(bhttp::field::server, "scoria");
  res.set(bhttp::field::content_type, std::string(content_type));
  res.keep_alive(keep_alive);
  res.body() = std::move(body);
  res.prepare_payload();
  return res;
}

namespace {

class Connection : public Stream, public std::enable_shared_from_this<Connection> {
 public:
  Connection(tcp::socket socket, std::shared_ptr<const Router> router, size_t body_limit)
      : socket_(std::move(socket)), router_(std::move(router)), body_limit_(body_limit) {
    boost::system::error_code ec;
    peer_ = socket_.remote_endpoint(ec);
  }

  void start() { read_request(); }

  // --- Stream -------------------------------------------------------------
  void write(std::string chunk) override {
    if (!streaming_ || closed_) return;
    pending_.push_back(std::move(chunk));
    if (pending_.size() == 1 && header_sent_) write_next_chunk();
  }
  void close() override {
    if (closed_) return;
    if (!streaming_) {
      shutdown();
      return;
    }
    closing_ = true;
    if (pending_.empty() && header_sent_) write_last_chunk();
  }
  bool open() const override { return streaming_ && !closed_ && !closing_; }

  void shutdown() {
    if (closed_) return;
    closed_ = true;
    boost::system::error_code ec;
    socket_.shutdown(tcp::socket::shutdown_both, ec);
    socket_.close(ec);
  }

 private:
  void read_request() {
    parser_.emplace();
    parser_->body_limit(body_limit_);
    auto self = shared_from_this();
    bhttp::async_read(socket_, buffer_, *parser_,
                      [self](beast::error_code ec, size_t) { self->on_read(ec); });
  }

  void on_read(beast::error_code ec) {
    if (ec == bhttp::error::end_of_stream || ec == asio::error::operation_aborted) {
      shutdown();
      return;
    }
    if (ec == bhttp::error::body_limit) {
      send(make_response(
          413, "{\"error\":\"request body exceeds " + std::to_string(body_limit_) + " bytes\"}\n",
          "application/json", 11, false));
      return;
    }
    if (ec) {
      if (ec == bhttp::error::bad_method || ec == bhttp::error::bad_target ||
          ec == bhttp::error::bad_version || ec == bhttp::error::bad_field ||
          ec == bhttp::error::bad_value) {
        send(make_response(400, "{\"error\":\"malformed HTTP request: " + ec.message() + "\"}\n",
                           "application/json", 11, false));
        return;
      }
      shutdown();
      return;
    }
    Request req = parser_->release();
    Reply reply;
    try {
      reply = (*router_)(req, peer_);
    } catch (const std::exception& e) {
      log::write(log::kError, "http", std::string("handler failed: ") + e.what());
      reply.response = make_response(500, "{\"error\":\"internal error\"}\n", "application/json");
    }
    reply.response.version(req.version());
    if (reply.on_stream) {
      start_stream(std::move(reply));
      return;
    }
    reply.response.keep_alive(req.keep_alive() && reply.response.keep_alive());
    send(std::move(reply.response));
  }

  void send(Response res) {
    auto msg = std::make_shared<Response>(std::move(res));
    auto self = shared_from_this();
    bhttp::async_write(socket_, *msg, [self, msg](beast::error_code ec, size_t) {
      if (ec || !msg->keep_alive()) {
        self->shutdown();
        return;
      }
      self->read_request();
    });
  }

  // A streamed answer: headers with chunked encoding, then the handler's
  // chunks as it writes them.
  void start_stream(Reply reply) {
    streaming_ = true;
    header_ = std::make_shared<bhttp::response<bhttp::empty_body>>(reply.response.result(),
                                                                   reply.response.version());
    for (const auto& field : reply.response) header_->set(field.name_string(), field.value());
    header_->chunked(true);
    header_->keep_alive(false);
    serializer_ = std::make_shared<bhttp::response_serializer<bhttp::empty_body>>(*header_);
    auto self = shared_from_this();
    bhttp::async_write_header(socket_, *serializer_, [self](beast::error_code ec, size_t) {
      if (ec) {
        self->shutdown();
        return;
      }
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
  void watch_peer() {
    auto self = shared_from_this();
    socket_.async_read_some(asio::buffer(probe_), [self](beast::error_code ec, size_t) {
      if (ec) {
        self->shutdown();
        return;
      }
      self->watch_peer();
    });
  }

  void write_next_chunk() {
    if (closed_) return;
    auto self = shared_from_this();
    asio::async_write(socket_, bhttp::make_chunk(asio::buffer(pending_.front())),
                      [self](beast::error_code ec, size_t) {
                        if (ec) {
                          self->shutdown();
                          return;
                        }
                        self->pending_.pop_front();
                        if (!self->pending_.empty()) {
                          self->write_next_chunk();
                        } else if (self->closing_) {
                          self->write_last_chunk();
                        }
                      });
  }

  void write_last_chunk() {
    if (closed_) return;
    auto self = shared_from_this();
    asio::async_write(socket_, bhttp::make_chunk_last(),
                      [self](beast::error_code, size_t) { self->shutdown(); });
  }

  tcp::socket socket_;
  std::shared_ptr<const Router> router_;
  size_t body_limit_;
  tcp::endpoint peer_;
  beast::flat_buffer buffer_;
  std::optional<bhttp::request_parser<bhttp::string_body>> parser_;

  bool streaming_ = false;
  bool header_sent_ = false;
  bool closing_ = false;
  bool closed_ = false;
  std::shared_ptr<bhttp::response<bhttp::empty_body>> header_;
  std::shared_ptr<bhttp::response_serializer<bhttp::empty_body>> serializer_;
  std::deque<std::string> pending_;
  char probe_[64] = {};
};

}  // namespace

struct Server::State : std::enable_shared_from_this<Server::State> {
  State(asio::io_context& io, ServerOptions opts, Router r)
      : acceptor(io),
        options(std::move(opts)),
        router(std::make_shared<const Router>(std::move(r))) {}

  void accept() {
    auto self = shared_from_this();
    acceptor.async_accept([self](beast::error_code ec, tcp::socket socket) {
      if (ec == asio::error::operation_aborted || !self->acceptor.is_open()) return;
      if (!ec) {
        auto conn =
            std::make_shared<Connection>(std::move(socket), self->router, self->options.body_limit);
        std::erase_if(self->connections, [](const auto& w) { return w.expired(); });
        self->connections.push_back(conn);
        conn->start();
      }
      self->accept();
    });
  }

  tcp::acceptor acceptor;
  ServerOptions options;
  std::shared_ptr<const Router> router;
  std::vector<std::weak_ptr<Connection>> connections;
};

Server::Server(asio::io_context& io, ServerOptions options, Router router)
    : state_(std::make_shared<State>(io, std::move(options), std::move(router))) {
  const tcp::endpoint endpoint(asio::ip::make_address(state_->options.address),
                               state_->options.port);
  state_->acceptor.open(endpoint.protocol());
  state_->acceptor.set_option(asio::socket_base::reuse_address(true));
  state_->acceptor.bind(endpoint);
  state_->acceptor.listen(asio::socket_base::max_listen_connections);
}

Server::~Server() { stop(); }

void Server::start() { state_->accept(); }

void Server::stop() {
  boost::system::error_code ec;
  state_->acceptor.close(ec);
  for (const auto& weak : state_->connections) {
    if (auto conn = weak.lock()) conn->shutdown();
  }
  state_->connections.clear();
}

unsigned short Server::port() const {
  boost::system::error_code ec;
  return state_->acceptor.local_endpoint(ec).port();
}

}  // namespace scoria::http
