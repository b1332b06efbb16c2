#include "serve/service.h"

#include <boost/asio/post.hpp>

#include <string>

#include "log/log.h"
#include "model/error.h"
#include "serve/service_state.h"

namespace scoria::serve {

namespace {
void info(const std::string& message) { log::write(log::kInfo, "serve", message); }
}  // namespace

bool is_loopback(std::string_view address) {
  return address == "localhost" || address == "::1" || address.starts_with("127.");
}

Service::Service(ServeOptions options) {
  if (!is_loopback(options.address) && options.token.empty())
    throw InputError("--listen " + options.address +
                     " reaches beyond this machine: give a bearer token for writes "
                     "(--token-file FILE or SCORIA_TOKEN), or listen on 127.0.0.1");
  std::filesystem::create_directories(options.state_dir);
  state_ = std::make_unique<State>(std::move(options));
  state_->load_config();
  http::ServerOptions http_options;
  http_options.address = state_->options.address;
  http_options.port = state_->options.port;
  state_->server = std::make_unique<http::Server>(
      state_->io, http_options,
      [this](const http::Request& request, const asio::ip::tcp::endpoint& peer) {
        return route(request, peer);
      });
}

Service::~Service() = default;

int Service::run() {
  State& s = *state_;
  s.server->start();
  info("listening on " + s.options.address + ":" + std::to_string(s.server->port()) + ", store " +
       (s.options.state_dir / "store.db").string());
  s.wait_signal();
  s.watch_config();
  asio::post(s.io, [&s] { s.tick(); });
  s.io.run();
  return 0;
}

}  // namespace scoria::serve
