// ABI 1.6 bind annotations: a plugin sets them on a task's allocation from
// on_allocate; the host drops them when the allocation is undone and hands
// them, with the bind, to every writer: the session's outcome, serve's store
// (the drafted bind and the one read again), and a Binding posted to the
// Kubernetes-compatible API, which writes them on the pod.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "abi/host_api.h"
#include "cache/cluster_cache.h"
#include "serve/kube_api.h"
#include "serve/local_cluster.h"
#include "serve/watch_hub.h"
#include "serve/written_objects.h"
#include "session/session.h"
#include "session/statement.h"
#include "session_fixture.h"
#include "store/object_store.h"

namespace scoria::session {
namespace {

scoria_str S(std::string_view s) { return {s.data(), s.size()}; }

// A plugin that writes the node's name on every task it is told was
// allocated, and notes what each deallocated task still carried.
struct Writer {
  std::vector<scoria_code> set_codes;
  std::vector<std::string> carried_at_deallocate;
};

scoria_hooks writing_hooks(Writer& w) {
  scoria_hooks h{};
  h.struct_size = sizeof h;
  h.user_data = &w;
  h.on_allocate = [](void* u, const scoria_task* task) {
    auto& self = *static_cast<Writer*>(u);
    const scoria_host_api* api = abi::host_api();
    auto* ssn = reinterpret_cast<scoria_session*>(task->ssn);
    self.set_codes.push_back(
        api->task_set_bind_annotation(ssn, task, S("example.com/card"), S("first")));
    self.set_codes.push_back(api->task_set_bind_annotation(ssn, task, S("example.com/card"),
                                                           S("GPU-0")));  // replaces
    self.set_codes.push_back(api->task_set_bind_annotation(ssn, task, S("a.example.com/x"), S("")));
  };
  h.on_deallocate = [](void* u, const scoria_task* task) {
    auto& self = *static_cast<Writer*>(u);
    scoria_str v{};
    const scoria_code c = abi::host_api()->task_bind_annotation(task, S("example.com/card"), &v);
    self.carried_at_deallocate.push_back(c == SCORIA_OK ? std::string(v.data, v.len) : "none");
  };
  return h;
}

class BindAnnotations : public ::testing::Test {
 protected:
  void SetUp() override {
    f.node("n0", 4000, 0);
    f.queue("default");
    f.job("j", 1, 2, 1000);
    ssn = std::make_unique<Session>(f.snap, f.config, nullptr);
    PluginHooks p;
    p.name = "writer";
    p.hooks = writing_hooks(w);
    ssn->add_plugin_hooks(0, p);
  }
  scoria_session* handle() { return reinterpret_cast<scoria_session*>(ssn.get()); }

  test_support::SessionFixture f;
  std::unique_ptr<Session> ssn;
  Writer w;
};

TEST_F(BindAnnotations, SetOnAllocateAndWrittenWithTheBind) {
  Statement* st = ssn->open_statement();
  ASSERT_EQ(st->allocate(ssn->tasks()[0], ssn->nodes()[0]), SCORIA_OK);
  EXPECT_EQ(w.set_codes, (std::vector<scoria_code>(3, SCORIA_OK)));
  scoria_str v{};
  ASSERT_EQ(abi::host_api()->task_bind_annotation(&ssn->tasks()[0], S("example.com/card"), &v),
            SCORIA_OK);
  EXPECT_EQ(std::string(v.data, v.len), "GPU-0");
  st->commit();
  ssn->close_statement(st);
  const Outcome out = ssn->close();
  ASSERT_EQ(out.binds.size(), 1u);
  // Sorted by key; the replaced value is gone.
  EXPECT_EQ(out.binds[0].annotations, (std::vector<std::pair<std::string, std::string>>{
                                          {"a.example.com/x", ""}, {"example.com/card", "GPU-0"}}));
}

TEST_F(BindAnnotations, DroppedWhenTheAllocationIsDiscarded) {
  Statement* st = ssn->open_statement();
  ASSERT_EQ(st->allocate(ssn->tasks()[0], ssn->nodes()[0]), SCORIA_OK);
  st->discard();
  ssn->close_statement(st);
  // Gone before on_deallocate is told.
  EXPECT_EQ(w.carried_at_deallocate, std::vector<std::string>{"none"});
  EXPECT_EQ(abi::host_api()->task_bind_annotation(&ssn->tasks()[0], S("example.com/card"), nullptr),
            SCORIA_NOT_FOUND);
  // A later allocation that sets none binds with none.
  Statement* again = ssn->open_statement();
  ASSERT_EQ(again->allocate(ssn->tasks()[1], ssn->nodes()[0]), SCORIA_OK);
  again->commit();
  ssn->close_statement(again);
  const Outcome out = ssn->close();
  ASSERT_EQ(out.binds.size(), 1u);
  EXPECT_EQ(out.binds[0].pod, "ns/j-1");
  EXPECT_EQ(out.binds[0].annotations.size(), 2u);
}

TEST_F(BindAnnotations, RefusedOutsideAnAllocation) {
  const scoria_host_api* api = abi::host_api();
  // Pending: no allocation to keep it with.
  EXPECT_EQ(api->task_set_bind_annotation(handle(), &ssn->tasks()[0], S("k"), S("v")),
            SCORIA_INVALID_ARGUMENT);
  Statement* st = ssn->open_statement();
  ASSERT_EQ(st->allocate(ssn->tasks()[0], ssn->nodes()[0]), SCORIA_OK);
  EXPECT_EQ(api->task_set_bind_annotation(handle(), &ssn->tasks()[0], S(""), S("v")),
            SCORIA_INVALID_ARGUMENT);
  EXPECT_EQ(api->task_set_bind_annotation(nullptr, &ssn->tasks()[0], S("k"), S("v")),
            SCORIA_INVALID_ARGUMENT);
  EXPECT_EQ(api->task_set_bind_annotation(handle(), nullptr, S("k"), S("v")),
            SCORIA_INVALID_ARGUMENT);
  Session other(f.snap, f.config, nullptr);
  EXPECT_EQ(api->task_set_bind_annotation(reinterpret_cast<scoria_session*>(&other),
                                          &ssn->tasks()[0], S("k"), S("v")),
            SCORIA_INVALID_ARGUMENT);
  EXPECT_EQ(api->task_bind_annotation(nullptr, S("k"), nullptr), SCORIA_INVALID_ARGUMENT);
  st->discard();
  ssn->close_statement(st);
}

}  // namespace
}  // namespace scoria::session

namespace scoria::serve {
namespace {

namespace fs = std::filesystem;
namespace http_ns = boost::beast::http;

class BindAnnotationsServe : public ::testing::Test {
 protected:
  BindAnnotationsServe()
      : dir_(fs::temp_directory_path() /
             ("scoria-bind-annotations-test-" + std::to_string(::getpid()))),
        store_((fs::remove_all(dir_), fs::create_directories(dir_), dir_ / "store.db")),
        hub_(store_),
        api_(store_, hub_, written_) {}
  ~BindAnnotationsServe() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  http::Reply send(http_ns::verb verb, const std::string& target, const std::string& body = "",
                   const std::string& type = "application/json") {
    http::Request request(verb, target, 11);
    request.set(http_ns::field::content_type, type);
    request.body() = body;
    request.prepare_payload();
    auto reply = api_.handle(request, target, "");
    EXPECT_TRUE(reply.has_value());
    hub_.pump();
    return reply ? std::move(*reply) : http::Reply();
  }
  void pod(const std::string& name) {
    send(http_ns::verb::post, "/api/v1/namespaces/ns/pods",
         R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":")" + name +
             R"(","annotations":{"keep":"me","example.com/card":"old"}},)"
             R"("spec":{"containers":[{"name":"c"}]}})");
  }
  nlohmann::json stored(const std::string& key) {
    return nlohmann::json::parse(store_.get("Pod", key)->json);
  }

  fs::path dir_;
  store::ObjectStore store_;
  WatchHub hub_;
  WrittenObjects written_;
  KubeApi api_;
};

TEST_F(BindAnnotationsServe, TheStoreWritesThemOnTheBoundPod) {
  LocalCluster cluster(store_, &hub_);
  send(http_ns::verb::post, "/api/v1/nodes",
       R"({"kind":"Node","apiVersion":"v1","metadata":{"name":"n1"},)"
       R"("status":{"allocatable":{"cpu":"8","pods":"10"}}})");
  pod("drafted");
  pod("read-again");
  cache::ClusterCache cache;
  cluster.refresh(cache);
  cycle::Outcome outcome;
  const std::vector<std::pair<std::string, std::string>> card = {{"example.com/card", "GPU-1"}};
  outcome.binds = {{"ns/drafted", "n1", card}, {"ns/read-again", "n1", card}};
  cluster.prepare(outcome, cache);
  // read-again changes after its draft: record() reads it once more.
  send(http_ns::verb::patch, "/api/v1/namespaces/ns/pods/read-again",
       R"({"metadata":{"labels":{"app":"web"}}})", "application/merge-patch+json");
  cluster.record(outcome, cache);
  hub_.pump();
  for (const char* key : {"ns/drafted", "ns/read-again"}) {
    const auto p = stored(key);
    EXPECT_EQ(p["spec"]["nodeName"], "n1") << key;
    EXPECT_EQ(p["metadata"]["annotations"]["example.com/card"], "GPU-1") << key;
    EXPECT_EQ(p["metadata"]["annotations"]["keep"], "me") << key;
  }
}

TEST_F(BindAnnotationsServe, ABindingsAnnotationsAreWrittenOnThePod) {
  pod("p");
  const http::Reply r =
      send(http_ns::verb::post, "/api/v1/namespaces/ns/pods/p/binding",
           R"({"kind":"Binding","apiVersion":"v1","metadata":{"name":"p","annotations":)"
           R"({"example.com/card":"GPU-2"}},"target":{"name":"n1"}})");
  EXPECT_EQ(r.response.result_int(), 201u);
  const auto p = stored("ns/p");
  EXPECT_EQ(p["spec"]["nodeName"], "n1");
  EXPECT_EQ(p["metadata"]["annotations"]["example.com/card"], "GPU-2");
  EXPECT_EQ(p["metadata"]["annotations"]["keep"], "me");
}

}  // namespace
}  // namespace scoria::serve
