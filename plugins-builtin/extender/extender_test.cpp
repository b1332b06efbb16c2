// Tests of the extender's parts that need no session: Volcano's
// extender_test.go (IsInterested, hasManagedResources, hasResourcesInList,
// the 10 MiB body limit), and the rest of what Volcano's send() and its
// Go structs decide: the answers as encoding/json reads them, the URL
// prefix, and the one keep-alive connection bounded by the timeout.
#include "http_client.h"
#include "json_writer.h"
#include "responses.h"
#include "settings.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <functional>
#include <string>
#include <thread>

namespace scoria_extender {
namespace {

using nlohmann::json;

// --- Volcano's TestIsInterested ------------------------------------------

json pod_with(const json& container, json init = json::array()) {
  return {
      {"spec", {{"containers", json::array({container})}, {"initContainers", std::move(init)}}}};
}
json requests(json list) { return {{"resources", {{"requests", std::move(list)}}}}; }
json limits(json list) { return {{"resources", {{"limits", std::move(list)}}}}; }

TEST(ExtenderIsInterested, VolcanoCases) {
  const ResourceNames gpu{"nvidia.com/gpu"};
  // empty managed resources: every pod
  EXPECT_TRUE(is_interested({}, pod_with(requests({{"cpu", "100m"}}))));
  // a container requests a managed resource
  EXPECT_TRUE(is_interested(gpu, pod_with(requests({{"cpu", "100m"}, {"nvidia.com/gpu", "1"}}))));
  // a container limits one
  EXPECT_TRUE(is_interested(gpu, pod_with(limits({{"nvidia.com/gpu", "1"}}))));
  // an init container requests one
  EXPECT_TRUE(is_interested(gpu, pod_with(requests({{"cpu", "100m"}}),
                                          json::array({requests({{"nvidia.com/gpu", "1"}})}))));
  // none managed
  EXPECT_FALSE(is_interested(gpu, pod_with(requests({{"cpu", "100m"}, {"memory", "128Mi"}}))));
  // several managed, one matches
  EXPECT_TRUE(is_interested({"nvidia.com/gpu", "amd.com/gpu"},
                            pod_with(requests({{"cpu", "100m"}, {"amd.com/gpu", "1"}}))));
}

TEST(ExtenderHasManagedResources, VolcanoCases) {
  const ResourceNames gpu{"nvidia.com/gpu"};
  const json gpu_request = requests({{"nvidia.com/gpu", "1"}});
  const json both = {
      {"resources",
       {{"requests", {{"nvidia.com/gpu", "1"}}}, {"limits", {{"nvidia.com/gpu", "1"}}}}}};
  EXPECT_FALSE(has_managed_resources(gpu, json::array()));  // no containers
  EXPECT_TRUE(has_managed_resources(gpu, json::array({gpu_request})));
  EXPECT_TRUE(has_managed_resources(gpu, json::array({limits({{"nvidia.com/gpu", "1"}})})));
  EXPECT_TRUE(has_managed_resources(gpu, json::array({both})));
  // several containers, the second has one
  EXPECT_TRUE(has_managed_resources(gpu, json::array({requests({{"cpu", "100m"}}), gpu_request})));
  EXPECT_FALSE(
      has_managed_resources(gpu, json::array({requests({{"cpu", "100m"}, {"memory", "128Mi"}})})));
  const json empty_requirements = {{"resources", json::object()}};
  EXPECT_FALSE(has_managed_resources(gpu, json::array({empty_requirements})));
  // several managed, partly matched
  EXPECT_TRUE(has_managed_resources(
      {"nvidia.com/gpu", "amd.com/gpu"},
      json::array({requests({{"nvidia.com/gpu", "1"}, {"intel.com/gpu", "1"}})})));
}

TEST(ExtenderHasResourcesInList, VolcanoCases) {
  const ResourceNames gpu{"nvidia.com/gpu"};
  const ResourceNames gpus{"nvidia.com/gpu", "amd.com/gpu"};
  EXPECT_FALSE(has_resources_in_list(gpu, json::object()));  // empty list
  EXPECT_FALSE(has_resources_in_list(gpu, nullptr));         // nil list
  EXPECT_TRUE(has_resources_in_list(gpu, {{"cpu", "100m"}, {"nvidia.com/gpu", "1"}}));
  EXPECT_FALSE(has_resources_in_list(gpu, {{"cpu", "100m"}, {"memory", "128Mi"}}));
  EXPECT_TRUE(has_resources_in_list(
      gpus, {{"cpu", "100m"}, {"nvidia.com/gpu", "1"}, {"amd.com/gpu", "1"}}));
  EXPECT_TRUE(has_resources_in_list(gpus, {{"cpu", "100m"}, {"amd.com/gpu", "1"}}));
  // no managed resources: a list names none of them (IsInterested says yes
  // before asking)
  EXPECT_FALSE(has_resources_in_list({}, {{"cpu", "100m"}, {"nvidia.com/gpu", "1"}}));
}

// --- answers, as encoding/json decodes Volcano's response structs ---------

TEST(ExtenderResponses, PredicateMessageWithoutCodeIsAnError) {
  std::string error;
  auto a = parse_predicate(R"({"status": "", "code": 3})", error);
  ASSERT_TRUE(a);
  EXPECT_TRUE(a->fits);  // no message: fits, whatever the code
  a = parse_predicate(R"({"status": "busy"})", error);
  ASSERT_TRUE(a);
  EXPECT_FALSE(a->fits);
  EXPECT_EQ(a->code, kCodeError);
  EXPECT_EQ(a->message, "busy");
  a = parse_predicate(R"({"Status": "busy", "CODE": 2})", error);  // keys in any case
  ASSERT_TRUE(a);
  EXPECT_EQ(a->code, kCodeUnschedulable);
  EXPECT_FALSE(parse_predicate(R"({"status": 1})", error));
  EXPECT_FALSE(parse_predicate("not json", error));
  EXPECT_FALSE(parse_predicate("", error));  // Go: EOF
  EXPECT_FALSE(parse_predicate("[]", error));
  EXPECT_TRUE(parse_predicate("null", error));  // Go: leaves the struct as it was
}

TEST(ExtenderResponses, PrioritizeNeedsScoresAndNoMessage) {
  std::string error;
  auto s = parse_prioritize(R"({"nodeScore": {"n1": 10, "n2": 2.5}, "errorMessage": ""})", error);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->at("n1"), 10);
  EXPECT_EQ(s->at("n2"), 2.5);
  EXPECT_FALSE(parse_prioritize(R"({"nodeScore": {"n1": 1}, "errorMessage": "no"})", error));
  EXPECT_NE(error.find("no"), std::string::npos);
  EXPECT_FALSE(parse_prioritize(R"({"errorMessage": ""})", error));  // nil map
  EXPECT_FALSE(parse_prioritize(R"({"nodeScore": {"n1": "high"}})", error));
  EXPECT_TRUE(parse_prioritize(R"({"nodeScore": {}})", error));
}

TEST(ExtenderResponses, VictimsByUid) {
  std::string error;
  auto v =
      parse_victims(R"({"status": 1, "victims": [{"UID": "ns/a"}, {"uid": "ns/b"}, null]})", error);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->status, 1);
  EXPECT_EQ(v->victim_uids, (std::vector<std::string>{"ns/a", "ns/b"}));
  v = parse_victims(R"({"status": -1})", error);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->status, -1);
  EXPECT_TRUE(v->victim_uids.empty());
  EXPECT_FALSE(parse_victims(R"({"status": 1.5})", error));
  EXPECT_FALSE(parse_victims(R"({"victims": {}})", error));
}

TEST(ExtenderResponses, VotesAndFlags) {
  std::string error;
  EXPECT_EQ(parse_vote(R"({"status": -1})", error), -1);
  EXPECT_EQ(parse_vote("{}", error), 0);
  EXPECT_FALSE(parse_vote(R"({"status": true})", error));
  EXPECT_EQ(parse_overused(R"({"overused": true})", error), true);
  EXPECT_FALSE(parse_overused(R"({"overused": 1})", error));
  EXPECT_EQ(parse_ready(R"({"status": false})", error), false);
  EXPECT_EQ(parse_ready(R"({"status": true})", error), true);
  EXPECT_EQ(parse_event(R"({"errorMessage": "gone"})", error), "gone");
  EXPECT_EQ(parse_event("{}", error), "");
}

// --- the request bodies' writer ---------------------------------------------

TEST(ExtenderJsonWriter, WritesWhatAParserReadsBack) {
  JsonWriter w;
  w.begin_object();
  w.key("UID").string("ns/a\"b\\c\n");
  w.key("Resreq").begin_object().key("MilliCPU").number(1500).key("Memory").number(0.1);
  w.key("ScalarResources").null().end_object();
  w.key("Pod").raw(R"({"spec": {"containers": []}})");
  w.key("Gone").raw("");
  w.key("List").begin_array().integer(-3).boolean(true).begin_object().end_object().end_array();
  w.key("NaN").number(std::nan(""));
  w.end_object();
  const json doc = json::parse(w.text());
  EXPECT_EQ(doc["UID"], "ns/a\"b\\c\n");
  EXPECT_EQ(doc["Resreq"]["MilliCPU"], 1500);
  EXPECT_EQ(doc["Resreq"]["Memory"].get<double>(), 0.1);
  EXPECT_TRUE(doc["Resreq"]["ScalarResources"].is_null());
  EXPECT_TRUE(doc["Pod"]["spec"]["containers"].is_array());
  EXPECT_TRUE(doc["Gone"].is_null());
  EXPECT_EQ(doc["List"], json::parse(R"([-3, true, {}])"));
  EXPECT_EQ(doc["NaN"], 0);
}

// --- extender.urlPrefix -----------------------------------------------------

TEST(ExtenderUrlPrefix, SplitsHostPortAndPath) {
  std::string error;
  auto ep = parse_url_prefix("http://127.0.0.1", error);
  ASSERT_TRUE(ep);
  EXPECT_EQ(ep->host, "127.0.0.1");
  EXPECT_EQ(ep->port, "80");
  EXPECT_EQ(ep->base_path, "");
  ep = parse_url_prefix("http://ext.example:8080/api/v1//", error);  // Volcano's TrimRight
  ASSERT_TRUE(ep);
  EXPECT_EQ(ep->host, "ext.example");
  EXPECT_EQ(ep->port, "8080");
  EXPECT_EQ(ep->base_path, "/api/v1");
  ep = parse_url_prefix("http://[::1]:9000", error);
  ASSERT_TRUE(ep);
  EXPECT_EQ(ep->host, "::1");
  EXPECT_EQ(ep->port, "9000");
  EXPECT_FALSE(parse_url_prefix("https://127.0.0.1", error));
  EXPECT_NE(error.find("https"), std::string::npos);
  EXPECT_FALSE(parse_url_prefix("127.0.0.1:80", error));
  EXPECT_FALSE(parse_url_prefix("http://:80", error));
  EXPECT_FALSE(parse_url_prefix("http://h:99999", error));
  EXPECT_FALSE(parse_url_prefix("http://h:80/p?q=1", error));
}

// --- the HTTP client against a loopback server ------------------------------

// A one-thread loopback server: `serve(fd, request_number)` handles each
// request (after reading its headers and body) on a connection it accepted.
class LoopbackServer {
 public:
  using Handler = std::function<bool(int fd, int request)>;  // false: close

  explicit LoopbackServer(Handler handler) : handler_(std::move(handler)) {
    listen_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    ::bind(listen_, reinterpret_cast<sockaddr*>(&addr), len);
    ::listen(listen_, 8);
    ::getsockname(listen_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { run(); });
  }
  ~LoopbackServer() {
    stop_ = true;
    ::shutdown(listen_, SHUT_RDWR);
    ::close(listen_);
    thread_.join();
  }
  Endpoint endpoint() const { return Endpoint{"127.0.0.1", std::to_string(port_), ""}; }
  int accepted() const { return accepted_; }

  static void send_all(int fd, std::string_view s) {
    while (!s.empty()) {
      const ssize_t n = ::send(fd, s.data(), s.size(), MSG_NOSIGNAL);
      if (n <= 0) return;
      s.remove_prefix(static_cast<size_t>(n));
    }
  }
  static void reply(int fd, std::string_view body) {
    send_all(fd, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " +
                     std::to_string(body.size()) + "\r\n\r\n");
    send_all(fd, body);
  }

 private:
  // Reads one request (headers and a Content-Length body); false at EOF.
  static bool read_request(int fd) {
    std::string data;
    char buf[4096];
    size_t need = std::string::npos;
    while (need == std::string::npos || data.size() < need) {
      const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
      if (n <= 0) return false;
      data.append(buf, static_cast<size_t>(n));
      const size_t end = data.find("\r\n\r\n");
      if (need == std::string::npos && end != std::string::npos) {
        const size_t cl = data.find("Content-Length: ");
        need =
            end + 4 + (cl != std::string::npos && cl < end ? std::stoul(data.substr(cl + 16)) : 0);
      }
    }
    return true;
  }
  void run() {
    int request = 0;
    while (!stop_) {
      const int fd = ::accept(listen_, nullptr, nullptr);
      if (fd < 0) return;
      ++accepted_;
      while (read_request(fd) && handler_(fd, request++)) {
      }
      ::close(fd);
    }
  }

  Handler handler_;
  int listen_ = -1;
  int port_ = 0;
  std::atomic<int> accepted_{0};
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

constexpr std::chrono::milliseconds kGenerous{30000};

// Volcano's TestMaxBodySizeLimit2: an answer past 10 MiB is refused.
TEST(ExtenderHttpClient, BodyLargerThanTheLimitIsAFailure) {
  constexpr size_t kLimit = size_t{10} << 20;
  LoopbackServer server([&](int fd, int) {
    LoopbackServer::reply(fd, R"({"padding":")" + std::string(kLimit + 1, 'a') + R"("})");
    return true;
  });
  HttpClient client(server.endpoint(), kGenerous, kLimit);
  const HttpResult r = client.post("test", "{}");
  EXPECT_FALSE(r.transport_ok) << r.status << " " << r.body.substr(0, 200);
  EXPECT_NE(r.error.find("larger than"), std::string::npos) << r.error;
}

TEST(ExtenderHttpClient, OneConnectionCarriesEveryCall) {
  LoopbackServer server([](int fd, int n) {
    LoopbackServer::reply(fd, R"({"n":)" + std::to_string(n) + "}");
    return true;
  });
  HttpClient client(server.endpoint(), kGenerous, 1 << 20);
  for (int i = 0; i < 3; ++i) {
    const HttpResult r = client.post("predicate", "{}");
    ASSERT_TRUE(r.transport_ok) << r.error;
    EXPECT_EQ(r.status, 200);
    EXPECT_EQ(r.body, R"({"n":)" + std::to_string(i) + "}");
  }
  EXPECT_EQ(server.accepted(), 1);
  client.close();
  ASSERT_TRUE(client.post("predicate", "{}").transport_ok);
  EXPECT_EQ(server.accepted(), 2);
}

TEST(ExtenderHttpClient, ConnectionTheServerClosedIsReplacedOnce) {
  // The server closes each connection after one answer, without saying so.
  LoopbackServer server([](int fd, int) {
    LoopbackServer::reply(fd, "{}");
    return false;
  });
  HttpClient client(server.endpoint(), kGenerous, 1 << 20);
  ASSERT_TRUE(client.post("a", "{}").transport_ok);
  const HttpResult r = client.post("b", "{}");
  EXPECT_TRUE(r.transport_ok) << r.error;
  EXPECT_EQ(server.accepted(), 2);
}

TEST(ExtenderHttpClient, SilentServerTimesOut) {
  std::atomic<bool> release{false};
  LoopbackServer server([&](int, int) {
    while (!release) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    return false;
  });
  HttpClient client(server.endpoint(), std::chrono::milliseconds(100), 1 << 20);
  const HttpResult r = client.post("predicate", "{}");
  release = true;
  EXPECT_FALSE(r.transport_ok);
  EXPECT_NE(r.error.find("timed out"), std::string::npos) << r.error;
}

TEST(ExtenderHttpClient, StatusAndBodyOfAnError) {
  LoopbackServer server([](int fd, int) {
    LoopbackServer::send_all(fd,
                             "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 4\r\n\r\noops");
    return true;
  });
  HttpClient client(server.endpoint(), kGenerous, 1 << 20);
  const HttpResult r = client.post("predicate", "{}");
  ASSERT_TRUE(r.transport_ok) << r.error;
  EXPECT_EQ(r.status, 500);
  EXPECT_EQ(r.body, "oops");
}

TEST(ExtenderHttpClient, NothingListeningIsAFailure) {
  Endpoint ep;
  {
    LoopbackServer gone([](int, int) { return false; });
    ep = gone.endpoint();
  }
  HttpClient client(ep, kGenerous, 1 << 20);
  const HttpResult r = client.post("predicate", "{}");
  EXPECT_FALSE(r.transport_ok);
  EXPECT_FALSE(r.error.empty());
}

}  // namespace
}  // namespace scoria_extender
