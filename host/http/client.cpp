#include "http/client.h"

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>

#include <charconv>

namespace scoria::http {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace ssl = boost::asio::ssl;

bool parse_endpoint(const std::string& url, Endpoint& out) {
  std::string_view rest = url;
  out.tls = rest.starts_with("https://");
  if (rest.starts_with("http://")) rest.remove_prefix(7);
  if (out.tls) rest.remove_prefix(8);
  while (rest.ends_with('/')) rest.remove_suffix(1);
  const size_t colon = rest.rfind(':');
  if (colon == std::string_view::npos || colon == 0) return false;
  unsigned port = 0;
  const std::string_view digits = rest.substr(colon + 1);
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), port);
  if (ec != std::errc() || end != digits.data() + digits.size() || port == 0 || port > 65535)
    return false;
  out.host = std::string(rest.substr(0, colon));
  out.port = static_cast<unsigned short>(port);
  return true;
}

std::string percent_encode(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    const bool unreserved = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                            (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' || c == '~';
    if (unreserved) {
      out += ch;
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 0xF];
    }
  }
  return out;
}

std::string path_of(std::initializer_list<std::string_view> segments) {
  std::string out;
  for (const std::string_view s : segments) {
    out += '/';
    out += percent_encode(s);
  }
  return out;
}

namespace {

/// Writes `req` and reads the answer on `stream` (plain or TLS).
template <class Stream>
void exchange(Stream& stream, const beast::http::request<beast::http::string_body>& req,
              ClientResult& result) {
  // A server refusing a body (413) may answer before taking all of it.
  boost::system::error_code write_error;
  beast::http::write(stream, req, write_error);
  beast::flat_buffer buffer;
  beast::http::response_parser<beast::http::string_body> parser;
  parser.body_limit(1u << 30);
  beast::http::read(stream, buffer, parser);
  result.status = parser.get().result_int();
  result.body = parser.get().body();
}

}  // namespace

ClientResult request(const Endpoint& server, const std::string& method, const std::string& target,
                     const std::string& body) {
  ClientResult result;
  try {
    asio::io_context io;
    asio::ip::tcp::resolver resolver(io);
    beast::http::request<beast::http::string_body> req(beast::http::string_to_verb(method), target,
                                                       11);
    req.set(beast::http::field::host, server.host);
    if (!server.token.empty()) req.set(beast::http::field::authorization, "Bearer " + server.token);
    req.body() = body;
    req.prepare_payload();
    const auto endpoints = resolver.resolve(server.host, std::to_string(server.port));
    if (!server.tls) {
      beast::tcp_stream stream(io);
      stream.connect(endpoints);
      exchange(stream, req, result);
      return result;
    }
    ssl::context ctx(ssl::context::tls_client);
    ctx.set_verify_mode(ssl::verify_peer);
    if (server.ca_file.empty()) {
      ctx.set_default_verify_paths();
    } else {
      ctx.load_verify_file(server.ca_file);
    }
    beast::ssl_stream<beast::tcp_stream> stream(io, ctx);
    // The name (or address) the certificate must be for, and SNI. On the
    // stream: a callback set on the context after the stream is made does
    // not reach it.
    stream.set_verify_callback(ssl::host_name_verification(server.host));
    if (!SSL_set_tlsext_host_name(stream.native_handle(), server.host.c_str()))
      throw boost::system::system_error(static_cast<int>(::ERR_get_error()),
                                        asio::error::get_ssl_category());
    beast::get_lowest_layer(stream).connect(endpoints);
    stream.handshake(ssl::stream_base::client);
    exchange(stream, req, result);
    boost::system::error_code ignored;
    stream.shutdown(ignored);
  } catch (const std::exception& e) {
    result.error = e.what();
  }
  return result;
}

}  // namespace scoria::http
