#include "serve_process.h"

#include <gtest/gtest.h>

#include "http/client.h"

#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>
#include <nlohmann/json.hpp>

#include <array>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace scoria::test {

namespace asio = boost::asio;
namespace beast = boost::beast;
using tcp = asio::ip::tcp;

HttpResult http(unsigned short port, const std::string& method, const std::string& target,
                const std::string& body, const std::string& token) {
  http::Endpoint server;
  server.port = port;
  server.token = token;
  const http::ClientResult r = http::request(server, method, target, body);
  return {r.status, r.body};
}

std::vector<std::string> watch_until(unsigned short port, long long after,
                                     const std::function<bool(const std::string&)>& done,
                                     std::chrono::milliseconds deadline) {
  std::vector<std::string> lines;
  asio::io_context io;
  beast::tcp_stream stream(io);
  boost::system::error_code ec;
  stream.socket().connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port), ec);
  if (ec) return lines;
  beast::http::request<beast::http::empty_body> req(
      beast::http::verb::get, "/api/v1/watch?resourceVersion=" + std::to_string(after), 11);
  req.set(beast::http::field::host, "127.0.0.1");
  beast::http::write(stream, req, ec);
  if (ec) return lines;
  // Asynchronous reads under io.run_for: the deadline holds even when the
  // server sends nothing.
  beast::flat_buffer buffer;
  beast::http::response_parser<beast::http::buffer_body> parser;
  parser.body_limit(boost::none);
  std::array<char, 8192> chunk{};
  std::string pending;
  bool finished = false;
  std::function<void()> read_more = [&] {
    parser.get().body().data = chunk.data();
    parser.get().body().size = chunk.size();
    beast::http::async_read_some(
        stream, buffer, parser, [&](const boost::system::error_code& error, size_t) {
          if (error && error != beast::http::error::need_buffer) {
            finished = true;
            return;
          }
          if (parser.is_header_done() && parser.get().body().data != nullptr)
            pending.append(chunk.data(), chunk.size() - parser.get().body().size);
          for (size_t nl; (nl = pending.find('\n')) != std::string::npos;) {
            lines.push_back(pending.substr(0, nl));
            pending.erase(0, nl + 1);
            if (done(lines.back())) {
              finished = true;
              return;
            }
          }
          if (parser.is_done()) {
            finished = true;
            return;
          }
          read_more();
        });
  };
  read_more();
  const auto until = std::chrono::steady_clock::now() + deadline;
  while (!finished && std::chrono::steady_clock::now() < until)
    io.run_one_for(until - std::chrono::steady_clock::now());
  return lines;
}

Exit run_scoria(const std::vector<std::string>& args, const ChildSetup& setup,
                std::chrono::milliseconds deadline) {
  char name[] = "/tmp/scoria-run-XXXXXX";
  const int err = ::mkstemp(name);
  if (err < 0) throw std::runtime_error("mkstemp failed");
  ::unlink(name);
  std::vector<std::string> argv_text = {SCORIA_BINARY};
  argv_text.insert(argv_text.end(), args.begin(), args.end());
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    ::dup2(err, 2);
    if (setup) setup();
    std::vector<char*> argv;
    for (auto& a : argv_text) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  Exit out;
  const auto until = std::chrono::steady_clock::now() + deadline;
  for (;;) {
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid) {
      out.status = status;
      break;
    }
    if (std::chrono::steady_clock::now() >= until) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::lseek(err, 0, SEEK_SET);
  char buf[4096];
  for (ssize_t n; (n = ::read(err, buf, sizeof buf)) > 0;)
    out.err.append(buf, static_cast<size_t>(n));
  ::close(err);
  return out;
}

RawConnection::RawConnection(unsigned short port, int receive_buffer) {
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd_ < 0) return;
  if (receive_buffer > 0)
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &receive_buffer, sizeof receive_buffer);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd_, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd_);
    fd_ = -1;
  }
}

RawConnection::~RawConnection() {
  if (fd_ >= 0) ::close(fd_);
}

bool RawConnection::send(const std::string& bytes) {
  for (size_t at = 0; at < bytes.size();) {
    const ssize_t n = ::send(fd_, bytes.data() + at, bytes.size() - at, MSG_NOSIGNAL);
    if (n <= 0) return false;
    at += static_cast<size_t>(n);
  }
  return true;
}

std::string RawConnection::read_until_closed(std::chrono::milliseconds deadline) {
  std::string out;
  const auto until = std::chrono::steady_clock::now() + deadline;
  while (!eof_) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        until - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
    char buf[65536];
    const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
    if (n <= 0) {
      eof_ = true;
      break;
    }
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

unsigned status_of(const std::string& response) {
  if (!response.starts_with("HTTP/1.") || response.size() < 12) return 0;
  return static_cast<unsigned>(std::atoi(response.substr(9, 3).c_str()));
}

std::filesystem::path copy_config(const std::filesystem::path& dir, const std::string& extra) {
  const std::filesystem::path conf = dir / "scheduler.toml";
  std::filesystem::copy_file(std::filesystem::path(SCORIA_SOURCE_DIR) / "config/scheduler.toml",
                             conf, std::filesystem::copy_options::overwrite_existing);
  if (!extra.empty()) std::ofstream(conf, std::ios::app) << extra;
  return conf;
}

std::vector<std::string> base_args(const std::filesystem::path& config) {
  return {"--config", config.string(), "--schedule-period", "100"};
}

long long version_of(unsigned short port, const std::string& target) {
  const HttpResult r = http(port, "GET", target);
  if (r.status != 200) return -1;
  return std::stoll(nlohmann::json::parse(r.body)["metadata"].value("resourceVersion", "-1"));
}

void expect_still_scheduling(unsigned short port) {
  ASSERT_EQ(http(port, "POST", "/api/v1/objects",
                 "kind: Node\napiVersion: v1\nmetadata: {name: n}\n"
                 "status: {allocatable: {cpu: \"4\", memory: 8Gi, pods: \"10\"}}\n---\n"
                 "kind: Pod\napiVersion: v1\nmetadata: {name: p, namespace: a}\n"
                 "spec: {containers: [{name: c, resources: {requests: {cpu: \"1\"}}}]}\n")
                .status,
            200u);
  bool bound = false;
  watch_until(
      port, 0,
      [&](const std::string& line) {
        return bound = nlohmann::json::parse(line)["type"] == "BOUND";
      },
      std::chrono::seconds(10));
  EXPECT_TRUE(bound);
}

long long settled_version(unsigned short port, const std::string& target) {
  const bool recorded = eventually([&] {
    const std::string metrics = http(port, "GET", "/metrics").body;
    const size_t at = metrics.find("\nscoria_sessions_total ");
    return at != std::string::npos && metrics.compare(at, 25, "\nscoria_sessions_total 0\n") != 0;
  });
  return recorded ? version_of(port, target) : -1;
}

ServeProcess::ServeProcess(const std::filesystem::path& state_dir, std::vector<std::string> args,
                           const ChildSetup& setup, bool pass_state_dir)
    : log_(state_dir / "serve.log") {
  std::filesystem::create_directories(state_dir);
  // A restart appends to the same log: look only at what this run writes.
  const size_t start = log().size();
  if (pass_state_dir) args.insert(args.begin(), {"--state-dir", state_dir.string()});
  args.insert(args.begin(), {SCORIA_BINARY, "serve", "--port", "0"});
  pid_ = ::fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    std::FILE* out = std::fopen(log_.c_str(), "a");
    if (out != nullptr) ::dup2(::fileno(out), 2);
    if (setup) setup();
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  // The port, from the "listening on 127.0.0.1:PORT" line.
  for (int i = 0; i < 200 && port_ == 0; ++i) {
    const std::string all = log();
    const std::string text = all.size() > start ? all.substr(start) : std::string();
    const size_t at = text.rfind("listening on ");
    if (at != std::string::npos) {
      const size_t colon = text.find(':', at);
      port_ = static_cast<unsigned short>(std::stoi(text.substr(colon + 1)));
      break;
    }
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      reaped_ = true;
      throw std::runtime_error("scoria serve exited at start:\n" + text);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  if (port_ == 0) throw std::runtime_error("scoria serve did not start listening:\n" + log());
}

ServeProcess::~ServeProcess() {
  if (!reaped_) {
    ::kill(pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }
}

void ServeProcess::signal(int signo) const { ::kill(pid_, signo); }

int ServeProcess::wait() {
  int status = 0;
  ::waitpid(pid_, &status, 0);
  reaped_ = true;
  return status;
}

int ServeProcess::wait_for(std::chrono::milliseconds deadline) {
  const auto until = std::chrono::steady_clock::now() + deadline;
  for (;;) {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      reaped_ = true;
      return status;
    }
    if (std::chrono::steady_clock::now() >= until) return -1;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

long ServeProcess::rss_kib() const {
  std::ifstream in("/proc/" + std::to_string(pid_) + "/status");
  for (std::string line; std::getline(in, line);)
    if (line.starts_with("VmRSS:")) return std::atol(line.c_str() + 6);
  return 0;
}

std::string ServeProcess::log() const {
  std::ifstream in(log_);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TempDir::TempDir() {
  dir_ = std::filesystem::temp_directory_path() /
         ("scoria-serve-test-" + std::to_string(::getpid()) + "-" + std::to_string(std::rand()));
  std::filesystem::remove_all(dir_);
  std::filesystem::create_directories(dir_);
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

}  // namespace scoria::test
