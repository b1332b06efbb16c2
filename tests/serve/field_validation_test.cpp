// Unknown fields through `scoria serve`'s Kubernetes API and its apply
// endpoint, as the API server's field validation treats them: Warn (the
// default) takes the object without them and says so in Warning headers,
// Strict refuses it with the API server's message and stores nothing,
// Ignore takes it silently; --strict-fields makes Strict the default.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "serve_process.h"

namespace scoria::test {
namespace {

using nlohmann::json;

constexpr const char* kPods = "/api/v1/namespaces/default/pods";

struct Answer {
  unsigned status = 0;
  std::vector<std::string> warnings;  // the Warning headers' values
  json body;
};

/// One request with its Content-Type, answered whole (the test's client
/// shows no headers, and these answers are about them).
Answer request(unsigned short port, const std::string& method, const std::string& target,
               const std::string& body = "", const std::string& content_type = "application/json") {
  RawConnection c(port);
  EXPECT_TRUE(
      c.send(method + " " + target +
             " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: " + content_type +
             "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body));
  const std::string response = c.read_until_closed(std::chrono::seconds(20));
  Answer a;
  a.status = status_of(response);
  const size_t end = response.find("\r\n\r\n");
  if (end == std::string::npos) return a;
  for (size_t at = response.find("\r\n"); at < end;) {
    const size_t next = response.find("\r\n", at + 2);
    const std::string line = response.substr(at + 2, next - at - 2);
    if (line.starts_with("Warning: ")) a.warnings.push_back(line.substr(9));
    at = next;
  }
  a.body = json::parse(response.substr(end + 4), nullptr, false);
  return a;
}

std::string pod(const std::string& name, const std::string& container_fields) {
  return R"({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": ")" + name +
         R"("}, "spec": {"containers": [{"name": "web", "image": "nginx", )" + container_fields +
         "}]}}";
}

const std::string kTypo = R"("resouces": {"requests": {"cpu": "1"}})";
const std::string kTypoWarning = R"(299 - "unknown field \"spec.containers[0].resouces\"")";
const std::string kTypoRefused =
    R"(Pod in version "v1" cannot be handled as a Pod: strict decoding error: unknown field )"
    R"("spec.containers[0].resouces")";

/// The store's version: a refused write leaves it where it was.
std::string store_version(unsigned short port) {
  return request(port, "GET", kPods).body["metadata"]["resourceVersion"].get<std::string>();
}

class ServeFieldValidation : public testing::Test {
 protected:
  void start(std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"--config",
                                     std::string(SCORIA_SOURCE_DIR) + "/config/scheduler.toml"};
    args.insert(args.end(), extra.begin(), extra.end());
    serve_.emplace(dir_.path() / "state", args);
    // Ready once the first session's writes are in the store: the tests
    // compare store versions, which those writes would move.
    ASSERT_TRUE(eventually([&] { return http(port(), "GET", "/readyz").status == 200; }))
        << serve_->log();
  }
  unsigned short port() const { return serve_->port(); }

  TempDir dir_;
  std::optional<ServeProcess> serve_;
};

TEST_F(ServeFieldValidation, CreateWarnsByDefaultAndStoresWithoutTheField) {
  start();
  const Answer made = request(port(), "POST", kPods, pod("web-0", kTypo));
  ASSERT_EQ(made.status, 201u) << made.body;
  EXPECT_EQ(made.warnings, std::vector<std::string>{kTypoWarning});
  EXPECT_EQ(made.body["spec"]["containers"][0], json({{"name", "web"}, {"image", "nginx"}}));
  const Answer got = request(port(), "GET", std::string(kPods) + "/web-0");
  EXPECT_EQ(got.body["spec"]["containers"][0], json({{"name", "web"}, {"image", "nginx"}}));
  EXPECT_TRUE(got.warnings.empty());
}

TEST_F(ServeFieldValidation, CreateStrictIsRefusedAndStoresNothing) {
  start();
  const std::string before = store_version(port());
  const Answer refused =
      request(port(), "POST", std::string(kPods) + "?fieldValidation=Strict&fieldManager=kubectl",
              pod("web-1", kTypo));
  EXPECT_EQ(refused.status, 400u);
  EXPECT_EQ(refused.body["kind"], "Status");
  EXPECT_EQ(refused.body["reason"], "BadRequest");
  EXPECT_EQ(refused.body["message"], kTypoRefused);
  EXPECT_TRUE(refused.warnings.empty());
  EXPECT_EQ(request(port(), "GET", std::string(kPods) + "/web-1").status, 404u);
  EXPECT_EQ(store_version(port()), before);
  // Without the typo, the same request is taken.
  EXPECT_EQ(request(port(), "POST", std::string(kPods) + "?fieldValidation=Strict",
                    pod("web-1", R"("resources": {"requests": {"cpu": "1"}})"))
                .status,
            201u);
}

TEST_F(ServeFieldValidation, CreateIgnoreTakesItSilently) {
  start();
  const Answer made =
      request(port(), "POST", std::string(kPods) + "?fieldValidation=Ignore", pod("web-2", kTypo));
  ASSERT_EQ(made.status, 201u) << made.body;
  EXPECT_TRUE(made.warnings.empty());
  EXPECT_FALSE(made.body["spec"]["containers"][0].contains("resouces"));
}

TEST_F(ServeFieldValidation, AnUnsupportedDirectiveIsRefused) {
  start();
  const Answer refused =
      request(port(), "POST", std::string(kPods) + "?fieldValidation=Bogus", pod("web-3", kTypo));
  EXPECT_EQ(refused.status, 422u);
  EXPECT_EQ(refused.body["message"],
            R"(CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: )"
            R"("Bogus": supported values: "", "Ignore", "Strict", "Warn")");
  EXPECT_EQ(request(port(), "GET", std::string(kPods) + "/web-3").status, 404u);
}

TEST_F(ServeFieldValidation, UpdateAndPatchAsTheApiServer) {
  start();
  ASSERT_EQ(
      request(port(), "POST", kPods, pod("web-0", R"("ports": [{"containerPort": 80}])")).status,
      201u);
  const std::string at = std::string(kPods) + "/web-0";
  // The pod's spec as stored: refused writes leave it (and its generation)
  // as it was. Sessions write its status and its PodGroup meanwhile, so the
  // store's version is no measure here.
  const json before = request(port(), "GET", at).body;
  const auto unchanged = [&] {
    const json now = request(port(), "GET", at).body;
    return now["spec"] == before["spec"] &&
           now["metadata"]["generation"] == before["metadata"]["generation"];
  };

  // PUT: the body is decoded as on create.
  const Answer put = request(port(), "PUT", at + "?fieldValidation=Strict", pod("web-0", kTypo));
  EXPECT_EQ(put.status, 400u);
  EXPECT_EQ(put.body["message"], kTypoRefused);

  // A strategic merge patch (kubectl apply's) shows the patch it decoded.
  const std::string patch =
      R"({"spec": {"containers": [{"name": "web", "resouces": {"limits": {"cpu": 2}}}]}})";
  const Answer smp = request(port(), "PATCH", at + "?fieldValidation=Strict", patch,
                             "application/strategic-merge-patch+json");
  EXPECT_EQ(smp.status, 422u);
  const std::string cause =
      R"(Invalid value: "map[spec:map[containers:[map[name:web resouces:map[limits:map[cpu:2]]]]]]": )"
      R"(strict decoding error: unknown field "spec.containers[0].resouces")";
  EXPECT_EQ(smp.body["reason"], "Invalid");
  EXPECT_EQ(smp.body["message"], R"( "" is invalid: patch: )" + cause);
  EXPECT_EQ(smp.body["details"],
            json({{"causes",
                   {{{"reason", "FieldValueInvalid"}, {"message", cause}, {"field", "patch"}}}}}));
  EXPECT_TRUE(unchanged());

  // A merge patch under Warn is taken without the field.
  const Answer merged = request(port(), "PATCH", at, R"({"metadata": {"lables": {"a": "b"}}})",
                                "application/merge-patch+json");
  ASSERT_EQ(merged.status, 200u) << merged.body;
  EXPECT_EQ(merged.warnings,
            std::vector<std::string>{R"(299 - "unknown field \"metadata.lables\"")"});
  EXPECT_FALSE(merged.body["metadata"].contains("lables"));
  EXPECT_EQ(merged.body["spec"]["containers"][0]["ports"],
            json::parse(R"([{"containerPort": 80}])"));
}

TEST_F(ServeFieldValidation, AVolcanoKindIsNamedByItsVersion) {
  start();
  const Answer refused = request(
      port(), "POST",
      "/apis/scheduling.volcano.sh/v1beta1/namespaces/default/podgroups?fieldValidation=Strict",
      R"({"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
          "metadata": {"name": "g"}, "spec": {"minMembr": 2}})");
  EXPECT_EQ(refused.status, 400u);
  EXPECT_EQ(refused.body["message"],
            R"(PodGroup in version "v1beta1" cannot be handled as a PodGroup: strict decoding )"
            R"(error: unknown field "spec.minMembr")");
}

TEST_F(ServeFieldValidation, ApplyEndpointWarnsOrRefusesAsTheFileLoader) {
  start();
  const std::string objects = R"(apiVersion: v1
kind: Node
metadata: {name: n1}
spec: {unschedulabel: true}
---
apiVersion: v1
kind: Pod
metadata: {name: web-0}
spec:
  containers: [{name: web, image: nginx, resouces: {}}]
)";
  const std::string node_warning =
      R"(request body: document 1 (Node n1): unknown field "spec.unschedulabel"; remove it or )"
      R"(correct its name (did you mean "unschedulable"?))";
  const std::string pod_warning =
      R"(request body: document 2 (Pod default/web-0): unknown field )"
      R"("spec.containers[0].resouces"; remove it or correct its name (did you mean )"
      R"("resources"?))";

  const std::string before = store_version(port());
  const Answer refused = request(port(), "POST", "/api/v1/objects?fieldValidation=Strict", objects,
                                 "application/yaml");
  EXPECT_EQ(refused.status, 400u);
  EXPECT_EQ(refused.body, json({{"error", node_warning}}));
  EXPECT_EQ(store_version(port()), before);

  const Answer applied = request(port(), "POST", "/api/v1/objects", objects, "application/yaml");
  ASSERT_EQ(applied.status, 200u) << applied.body;
  EXPECT_EQ(applied.body["warnings"], json({node_warning, pod_warning}));
  ASSERT_EQ(applied.warnings.size(), 2u);
  EXPECT_EQ(applied.warnings[0],
            R"w(299 - "request body: document 1 (Node n1): unknown field \"spec.unschedulabel\"; )w"
            R"w(remove it or correct its name (did you mean \"unschedulable\"?)")w");
  // Stored without them.
  EXPECT_EQ(request(port(), "GET", "/api/v1/nodes/n1").body["spec"], json::object());
}

TEST_F(ServeFieldValidation, StrictFieldsMakesStrictTheDefault) {
  start({"--strict-fields"});
  const Answer refused = request(port(), "POST", kPods, pod("web-0", kTypo));
  EXPECT_EQ(refused.status, 400u);
  EXPECT_EQ(refused.body["message"], kTypoRefused);
  EXPECT_EQ(request(port(), "POST", "/api/v1/objects", pod("web-0", kTypo)).status, 400u);
  EXPECT_EQ(request(port(), "GET", std::string(kPods) + "/web-0").status, 404u);
  // A request that names another directive gets it.
  const Answer warned =
      request(port(), "POST", std::string(kPods) + "?fieldValidation=Warn", pod("web-0", kTypo));
  EXPECT_EQ(warned.status, 201u);
  EXPECT_EQ(warned.warnings, std::vector<std::string>{kTypoWarning});
}

}  // namespace
}  // namespace scoria::test
