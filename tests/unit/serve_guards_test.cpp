// The small pieces behind serve's robustness: flag values, the log throttle,
// the constant-time token comparison and the request guard's rules.
#include <gtest/gtest.h>

#include <boost/beast/http/field.hpp>

#include "cli/flag_values.h"
#include "log/throttle.h"
#include "model/error.h"
#include "model/go_duration.h"
#include "serve/request_guard.h"

namespace scoria {
namespace {

using namespace std::chrono_literals;
namespace bhttp = boost::beast::http;

TEST(FlagValues, DurationsInGoSpelling) {
  EXPECT_EQ(cli::parse_duration("--t", "500ms"), 500ms);
  EXPECT_EQ(cli::parse_duration("--t", "10s"), 10s);
  EXPECT_EQ(cli::parse_duration("--t", "2m"), 120s);
  EXPECT_EQ(cli::parse_duration("--t", "7"), 7s);
  EXPECT_EQ(cli::parse_duration("--t", "1h30m"), 5400s);
  EXPECT_EQ(cli::parse_duration("--t", "1.5s"), 1500ms);
  EXPECT_EQ(cli::parse_duration("--t", "2m0.25s"), 120250ms);
  EXPECT_EQ(cli::parse_duration("--t", "250us"), 1ms);  // rounded up, never to 0
  EXPECT_EQ(model::parse_go_duration("-1.5h"), std::chrono::nanoseconds(-5'400'000'000'000));
  EXPECT_EQ(model::parse_go_duration("0"), std::chrono::nanoseconds(0));
  for (const char* bad : {"", "0s", "-1s", "s", "10 s", "99999999999999999999s", "2d", "25h",
                          "1.2.3s", "1h30", ".s", "0"})
    EXPECT_THROW(cli::parse_duration("--t", bad), InputError) << bad;
}

TEST(FlagValues, CountsAndSizes) {
  EXPECT_EQ(cli::parse_count("--n", "4Mi", 1, uint64_t{1} << 40, true), 4u << 20);
  EXPECT_EQ(cli::parse_count("--n", "12", 0, 100), 12u);
  EXPECT_THROW(cli::parse_count("--n", "4Mi", 1, 1000), InputError);
  EXPECT_THROW(cli::parse_count("--n", "101", 0, 100), InputError);
  EXPECT_THROW(cli::parse_count("--n", "18446744073709551615Gi", 0, uint64_t{1} << 40, true),
               InputError);
}

TEST(Throttle, OneLinePerIntervalWithTheCount) {
  log::Throttle t(10s);
  const auto start = log::Throttle::Clock::time_point{} + 1h;
  EXPECT_EQ(t.admit(start), 1u);
  EXPECT_FALSE(t.admit(start + 1s));
  EXPECT_FALSE(t.admit(start + 9s));
  EXPECT_EQ(t.admit(start + 10s), 3u);  // this one and the two held back
  EXPECT_FALSE(t.admit(start + 11s));
}

TEST(RequestGuard, ConstantTimeComparisonIsStillAComparison) {
  EXPECT_TRUE(serve::equal_constant_time("s3cret", "s3cret"));
  EXPECT_FALSE(serve::equal_constant_time("s3cres", "s3cret"));
  EXPECT_FALSE(serve::equal_constant_time("s3cret-and-more", "s3cret"));
  EXPECT_FALSE(serve::equal_constant_time("s3c", "s3cret"));
  EXPECT_FALSE(serve::equal_constant_time("", "s3cret"));
}

http::Request request(bhttp::verb verb, std::string host) {
  http::Request r{verb, "/api/v1/objects", 11};
  if (!host.empty()) r.set(bhttp::field::host, host);
  return r;
}

unsigned refusal(const serve::RequestGuard& g, const http::Request& r) {
  const auto refused = g.check(r);
  return refused ? refused->response.result_int() : 0;
}

TEST(RequestGuard, HostOriginTypeAndToken) {
  const serve::RequestGuard loopback("127.0.0.1", true, "");
  EXPECT_EQ(refusal(loopback, request(bhttp::verb::get, "127.0.0.1:8080")), 0u);
  EXPECT_EQ(refusal(loopback, request(bhttp::verb::get, "127.9.9.9")), 0u);
  EXPECT_EQ(refusal(loopback, request(bhttp::verb::get, "[::1]:80")), 0u);
  EXPECT_EQ(refusal(loopback, request(bhttp::verb::get, "rebind.example:8080")), 403u);
  EXPECT_EQ(refusal(loopback, request(bhttp::verb::get, "127.0.0.1.evil.example")), 403u);

  auto from = request(bhttp::verb::post, "localhost:8080");
  from.set(bhttp::field::origin, "http://localhost:8080");
  EXPECT_EQ(refusal(loopback, from), 0u);
  from.set(bhttp::field::origin, "null");
  EXPECT_EQ(refusal(loopback, from), 403u);

  auto typed = request(bhttp::verb::post, "localhost");
  typed.set(bhttp::field::content_type, "application/json; charset=utf-8");
  EXPECT_EQ(refusal(loopback, typed), 0u);
  typed.set(bhttp::field::content_type, "multipart/form-data; boundary=x");
  EXPECT_EQ(refusal(loopback, typed), 415u);

  // Beyond loopback any Host does, and writes need the token.
  const serve::RequestGuard open("0.0.0.0", false, "s3cret");
  EXPECT_EQ(refusal(open, request(bhttp::verb::get, "scheduler.example")), 0u);
  auto write = request(bhttp::verb::delete_, "scheduler.example");
  EXPECT_EQ(refusal(open, write), 401u);
  write.set(bhttp::field::authorization, "Bearer s3cret");
  EXPECT_EQ(refusal(open, write), 0u);
}

}  // namespace
}  // namespace scoria
