// `scoria ctl` percent-encodes what the user names: the request line a server
// receives is checked byte for byte, so `delete node 'a?b'` can never reach
// node "a" with a query string, nor 'x/y' a deeper path.
#include <gtest/gtest.h>

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>

#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "cli/commands.h"
#include "http/client.h"

namespace scoria {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;

TEST(PercentEncode, KeepsUnreservedAndEncodesTheRest) {
  EXPECT_EQ(http::percent_encode("node-1.a_b~"), "node-1.a_b~");
  EXPECT_EQ(http::percent_encode("a?b"), "a%3Fb");
  EXPECT_EQ(http::percent_encode("x/y#z%20&k=v +"), "x%2Fy%23z%2520%26k%3Dv%20%2B");
  EXPECT_EQ(http::percent_encode("\xC3\xA9"), "%C3%A9");  // UTF-8 byte by byte
  EXPECT_EQ(http::percent_encode(""), "");
  EXPECT_EQ(http::path_of({"api", "v1", "nodes", "a?b"}), "/api/v1/nodes/a%3Fb");
}

// Runs `scoria ctl ARGS` against a one-request server and returns the
// request line it received ("METHOD target").
std::string request_line_of(std::vector<std::string_view> args) {
  asio::io_context io;
  asio::ip::tcp::acceptor acceptor(io, {asio::ip::make_address("127.0.0.1"), 0});
  const std::string server = "http://127.0.0.1:" + std::to_string(acceptor.local_endpoint().port());
  std::string line;
  std::thread answer([&] {
    asio::ip::tcp::socket socket(io);
    acceptor.accept(socket);
    beast::flat_buffer buffer;
    beast::http::request<beast::http::string_body> req;
    beast::http::read(socket, buffer, req);
    line = std::string(req.method_string()) + " " + std::string(req.target());
    beast::http::response<beast::http::string_body> res(beast::http::status::ok, 11);
    res.set(beast::http::field::content_type, "application/json");
    res.body() = R"({"metadata": {"name": "x"}})";
    res.prepare_payload();
    beast::http::write(socket, res);
  });
  args.insert(args.begin(), {"--server", server});
  testing::internal::CaptureStdout();
  const int status = cli::ctl(args);
  testing::internal::GetCapturedStdout();
  answer.join();
  EXPECT_EQ(status, 0);
  return line;
}

TEST(CtlUrl, DeleteAddressesTheNamedNodeNotAPrefixOfIt) {
  EXPECT_EQ(request_line_of({"delete", "node", "a?b"}), "DELETE /api/v1/nodes/a%3Fb");
}

TEST(CtlUrl, NamespaceAndNameAreEachOneSegment) {
  EXPECT_EQ(request_line_of({"get", "pod", "x/y", "-n", "n s", "-o", "json"}),
            "GET /api/v1/pods/n%20s/x%2Fy");
  EXPECT_EQ(request_line_of({"describe", "podgroup", "g#1", "-n", "ml"}),
            "GET /api/v1/podgroups/ml/g%231/describe");
}

}  // namespace
}  // namespace scoria
