// The kubeconfig reader and server URLs of the kubernetes source.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "kube/client_config.h"
#include "model/error.h"

namespace scoria::kube {
namespace {

class Kubeconfig : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        std::filesystem::temp_directory_path() /
        ("scoria-kubeconfig-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
         "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_ / "certs");
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::filesystem::path write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return dir_ / name;
  }

  std::string refusal(const std::filesystem::path& path, const std::string& context = "") {
    try {
      load_kubeconfig(path, context);
    } catch (const InputError& e) {
      return e.what();
    }
    return "accepted";
  }

  std::filesystem::path dir_;
};

constexpr const char* kTwoContexts = R"(apiVersion: v1
kind: Config
current-context: prod
clusters:
- name: prod-cluster
  cluster:
    server: https://10.0.0.1:6443
    certificate-authority-data: Q0EtUEVN
- name: dev-cluster
  cluster:
    server: https://[fd00::1]
    certificate-authority: certs/ca.crt
    tls-server-name: api.dev
    insecure-skip-tls-verify: false
users:
- name: admin
  user:
    token: secret-token
- name: dev
  user:
    client-certificate: certs/client.crt
    client-key-data: S0VZLVBFTQ==
contexts:
- name: prod
  context: {cluster: prod-cluster, user: admin}
- name: dev
  context: {cluster: dev-cluster, user: dev}
)";

TEST_F(Kubeconfig, TheCurrentContextGivesServerCaAndToken) {
  const ClientConfig c = load_kubeconfig(write("config", kTwoContexts), "");
  EXPECT_TRUE(c.tls);
  EXPECT_EQ(c.host, "10.0.0.1");
  EXPECT_EQ(c.port, "6443");
  EXPECT_EQ(c.ca_pem, "CA-PEM");  // base64 decoded
  EXPECT_EQ(c.token, "secret-token");
  EXPECT_TRUE(c.client_cert_pem.empty());
  EXPECT_NE(c.origin.find("context prod"), std::string::npos);
}

TEST_F(Kubeconfig, ANamedContextReadsFilesBesideTheKubeconfig) {
  write("certs/ca.crt", "DEV-CA");
  write("certs/client.crt", "CLIENT-CERT");
  const ClientConfig c = load_kubeconfig(write("config", kTwoContexts), "dev");
  EXPECT_EQ(c.host, "fd00::1");
  EXPECT_EQ(c.port, "443");
  EXPECT_EQ(c.server_name, "api.dev");
  EXPECT_EQ(c.ca_pem, "DEV-CA");
  EXPECT_EQ(c.client_cert_pem, "CLIENT-CERT");
  EXPECT_EQ(c.client_key_pem, "KEY-PEM");
}

TEST_F(Kubeconfig, ATokenFileIsReadAndRemembered) {
  write("token", "from-file\n");
  const ClientConfig c = load_kubeconfig(write("config", R"(current-context: c
clusters: [{name: k, cluster: {server: "http://127.0.0.1:8080/prefix/"}}]
users: [{name: u, user: {tokenFile: token}}]
contexts: [{name: c, context: {cluster: k, user: u}}]
)"),
                                         "");
  EXPECT_FALSE(c.tls);
  EXPECT_EQ(c.base_path, "/prefix");
  EXPECT_EQ(c.token, "from-file");
  EXPECT_EQ(c.token_file, dir_ / "token");
}

TEST_F(Kubeconfig, RefusalsNameTheFileTheFieldAndTheFix) {
  EXPECT_NE(refusal(dir_ / "missing").find("missing"), std::string::npos);
  const auto path = write("config", kTwoContexts);
  const std::string no_context = refusal(path, "staging");
  EXPECT_NE(no_context.find("contexts: no entry named \"staging\""), std::string::npos)
      << no_context;
  EXPECT_NE(no_context.find("\"prod\", \"dev\""), std::string::npos) << no_context;
  // dev names certs/ca.crt, which is not there.
  EXPECT_NE(refusal(path, "dev").find("certificate-authority"), std::string::npos);

  const std::string exec = refusal(write("exec", R"(current-context: c
clusters: [{name: k, cluster: {server: "https://a:1"}}]
users: [{name: u, user: {exec: {command: gke-gcloud-auth-plugin}}}]
contexts: [{name: c, context: {cluster: k, user: u}}]
)"));
  EXPECT_NE(exec.find("users[u].user.exec"), std::string::npos) << exec;
  EXPECT_NE(exec.find("not supported"), std::string::npos) << exec;

  const std::string bad_url = refusal(write("url", R"(current-context: c
clusters: [{name: k, cluster: {server: "ftp://a"}}]
contexts: [{name: c, context: {cluster: k}}]
)"));
  EXPECT_NE(bad_url.find("clusters[k].cluster.server"), std::string::npos) << bad_url;

  const std::string bad_b64 = refusal(write("b64", R"(current-context: c
clusters: [{name: k, cluster: {server: "https://a", certificate-authority-data: "%%%"}}]
contexts: [{name: c, context: {cluster: k}}]
)"));
  EXPECT_NE(bad_b64.find("certificate-authority-data: is not base64"), std::string::npos)
      << bad_b64;

  const std::string syntax = refusal(write("syntax", "clusters: [\n"));
  EXPECT_NE(syntax.find("syntax"), std::string::npos) << syntax;
}

TEST(ServerUrl, PortsHostsAndPrefixes) {
  ClientConfig c;
  ASSERT_TRUE(parse_server_url("https://example.com", c));
  EXPECT_EQ(c.port, "443");
  ASSERT_TRUE(parse_server_url("http://example.com", c));
  EXPECT_EQ(c.port, "80");
  ASSERT_TRUE(parse_server_url("https://[::1]:6443/k8s", c));
  EXPECT_EQ(c.host, "::1");
  EXPECT_EQ(c.port, "6443");
  EXPECT_EQ(c.base_path, "/k8s");
  EXPECT_FALSE(parse_server_url("example.com:443", c));
  EXPECT_FALSE(parse_server_url("https://host:0", c));
  EXPECT_FALSE(parse_server_url("https://host:99999", c));
  EXPECT_FALSE(parse_server_url("https://host:8x", c));
  EXPECT_FALSE(parse_server_url("https://", c));
}

}  // namespace
}  // namespace scoria::kube
