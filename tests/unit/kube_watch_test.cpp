// A watcher open while objects are written is sent what their writer
// served (no parse of the log); one that resumes later reads the log. Both
// must be sent the very same lines, for the API's writes and for the binds
// a session drafted on its own thread.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "cache/cluster_cache.h"
#include "http/server.h"
#include "serve/kube_api.h"
#include "serve/local_cluster.h"
#include "serve/watch_hub.h"
#include "serve/written_objects.h"
#include "store/object_store.h"

namespace scoria::serve {
namespace {

namespace fs = std::filesystem;
namespace http_ns = boost::beast::http;

class TextStream : public http::Stream {
 public:
  void write(std::string chunk) override { text += chunk; }
  void close() override { open_ = false; }
  bool open() const override { return open_; }
  size_t backlog() const override { return 0; }
  size_t backlog_limit() const override { return size_t{1} << 30; }
  std::string text;

 private:
  bool open_ = true;
};

class KubeWatch : public ::testing::Test {
 protected:
  KubeWatch()
      : dir_(fs::temp_directory_path() / ("scoria-kube-watch-test-" + std::to_string(::getpid()))),
        store_((fs::remove_all(dir_), fs::create_directories(dir_), dir_ / "store.db")),
        hub_(store_),
        api_(store_, hub_, written_) {}
  ~KubeWatch() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  /// A request as the connection hands it over, then a pump, as the group
  /// commit does after each write.
  http::Reply send(http_ns::verb verb, const std::string& target, const std::string& body = "",
                   const std::string& type = "application/json") {
    http::Request request(verb, target, 11);
    request.set(http_ns::field::content_type, type);
    request.body() = body;
    request.prepare_payload();
    const size_t q = target.find('?');
    auto reply = api_.handle(request, target.substr(0, q),
                             q == std::string::npos ? "" : target.substr(q + 1));
    EXPECT_TRUE(reply.has_value());
    hub_.pump();
    return reply ? std::move(*reply) : http::Reply();
  }

  std::shared_ptr<TextStream> watch(const std::string& query) {
    auto stream = std::make_shared<TextStream>();
    http::Reply reply = send(http_ns::verb::get, "/api/v1/namespaces/ns/pods?watch=true" + query);
    EXPECT_TRUE(reply.on_stream);
    if (reply.on_stream) reply.on_stream(stream);
    return stream;
  }

  fs::path dir_;
  store::ObjectStore store_;
  WatchHub hub_;
  WrittenObjects written_;
  KubeApi api_;
};

TEST_F(KubeWatch, WhatTheWriterServedIsWhatTheLogWouldHaveSent) {
  send(http_ns::verb::post, "/api/v1/nodes",
       R"({"kind":"Node","apiVersion":"v1","metadata":{"name":"n1"},)"
       R"("status":{"allocatable":{"cpu":"8","pods":"10"}}})");
  const int64_t before = store_.latest_version();
  auto live = watch("");
  auto selected = watch("&labelSelector=app%3Dweb");
  send(http_ns::verb::post, "/api/v1/namespaces/ns/pods",
       R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":"p","labels":{"app":"db"}},)"
       R"("spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"1.5"}}}]}})");
  send(http_ns::verb::patch, "/api/v1/namespaces/ns/pods/p",
       R"({"metadata":{"labels":{"app":"web"}}})", "application/merge-patch+json");
  send(http_ns::verb::post, "/api/v1/namespaces/ns/pods/p/binding",
       R"({"kind":"Binding","apiVersion":"v1","metadata":{"name":"p"},"target":{"name":"n1"}})");
  auto resumed = watch("&resourceVersion=" + std::to_string(before));
  auto resumed_selected =
      watch("&labelSelector=app%3Dweb&resourceVersion=" + std::to_string(before));

  EXPECT_EQ(live->text, resumed->text);
  EXPECT_EQ(selected->text, resumed_selected->text);
  // ADDED, MODIFIED (label), MODIFIED (bound); the selector drops the first.
  int lines = 0;
  for (const char c : live->text) lines += c == '\n';
  EXPECT_EQ(lines, 3) << live->text;
  lines = 0;
  for (const char c : selected->text) lines += c == '\n';
  EXPECT_EQ(lines, 2) << selected->text;
  const auto last =
      nlohmann::json::parse(live->text.substr(live->text.rfind('\n', live->text.size() - 2) + 1));
  EXPECT_EQ(last["type"], "MODIFIED");
  EXPECT_EQ(last["object"]["spec"]["nodeName"], "n1");
  EXPECT_EQ(last["object"]["metadata"]["resourceVersion"], std::to_string(store_.latest_version()));
}

TEST_F(KubeWatch, DraftedBindsAreSentAsTheLogWouldAndAPodChangedSinceKeepsItsChange) {
  LocalCluster cluster(store_, &hub_);
  send(http_ns::verb::post, "/api/v1/nodes",
       R"({"kind":"Node","apiVersion":"v1","metadata":{"name":"n1"},)"
       R"("status":{"allocatable":{"cpu":"8","pods":"10"}}})");
  for (const char* name : {"a", "b", "c"})
    send(http_ns::verb::post, "/api/v1/namespaces/ns/pods",
         std::string(R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":")") + name +
             R"(","labels":{"app":"db"}},"spec":{"containers":[{"name":"c"}]}})");
  cache::ClusterCache cache;
  cluster.refresh(cache);
  const int64_t before = store_.latest_version();
  const std::string from = "&resourceVersion=" + std::to_string(before);
  auto live = watch(from);
  auto bound = watch("&fieldSelector=spec.nodeName%21%3D" + from);
  cycle::Outcome outcome;
  outcome.binds = {{"ns/a", "n1"}, {"ns/b", "n1"}, {"ns/c", "n1"}};
  cluster.prepare(outcome, cache);  // on the session thread, in the service
  // Meanwhile b is relabelled and c deleted through the API.
  send(http_ns::verb::patch, "/api/v1/namespaces/ns/pods/b",
       R"({"metadata":{"labels":{"app":"web"}}})", "application/merge-patch+json");
  send(http_ns::verb::delete_, "/api/v1/namespaces/ns/pods/c?gracePeriodSeconds=0");
  cluster.record(outcome, cache);
  hub_.pump();

  const auto b = nlohmann::json::parse(store_.get("Pod", "ns/b")->json);
  EXPECT_EQ(b["metadata"]["labels"]["app"], "web");
  EXPECT_EQ(b["spec"]["nodeName"], "n1");
  EXPECT_EQ(b["status"]["conditions"][0]["type"], "PodScheduled");
  EXPECT_FALSE(store_.get("Pod", "ns/c").has_value());
  int scheduled = 0;
  for (const store::StoredObject& e : store_.list("Event")) {
    const auto event = nlohmann::json::parse(e.json);
    if (event["reason"] == "Scheduled") {
      ++scheduled;
      EXPECT_NE(event["involvedObject"]["name"], "c");
    }
  }
  EXPECT_EQ(scheduled, 2);
  // Watchers open from the start were sent the drafts; these read the log.
  auto resumed = watch(from);
  auto resumed_bound = watch("&fieldSelector=spec.nodeName%21%3D" + from);
  EXPECT_EQ(live->text, resumed->text);
  EXPECT_EQ(bound->text, resumed_bound->text);
  int lines = 0;
  for (const char c : bound->text) lines += c == '\n';
  EXPECT_EQ(lines, 2) << bound->text;  // a and b, bound
}

}  // namespace
}  // namespace scoria::serve
