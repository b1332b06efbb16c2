#include "kube/client_config.h"

#include <openssl/evp.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "input/documents.h"
#include "model/error.h"

namespace scoria::kube {

namespace {

using nlohmann::json;

// A kubeconfig is small; anything past this is not one.
constexpr uintmax_t kMaxFileBytes = 4 << 20;

std::string read_file(const std::filesystem::path& path, const std::string& what) {
  std::error_code ec;
  const uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec) throw InputError(path.string() + ": cannot read " + what + ": " + ec.message());
  if (size > kMaxFileBytes)
    throw InputError(path.string() + ": " + what + " is " + std::to_string(size) +
                     " bytes, more than a kubeconfig or certificate can be");
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  if (!in && !in.eof()) throw InputError(path.string() + ": cannot read " + what);
  return text.str();
}

// A token file's text without the line end editors and `kubectl create
// token > file` leave.
std::string trimmed(std::string token) {
  while (!token.empty() && (token.back() == '\n' || token.back() == '\r' || token.back() == ' '))
    token.pop_back();
  return token;
}

class Kubeconfig {
 public:
  Kubeconfig(std::filesystem::path path, json doc) : path_(std::move(path)), doc_(std::move(doc)) {}

  [[noreturn]] void fail(const std::string& field, const std::string& what) const {
    throw InputError(path_.string() + ": " + field + ": " + what);
  }

  // The entry of `list` ("contexts") named `name`, its `inner` mapping.
  const json& entry(const char* list, const std::string& name, const char* inner) const {
    const auto it = doc_.find(list);
    if (it != doc_.end() && it->is_array())
      for (size_t i = 0; i < it->size(); ++i) {
        const json& e = (*it)[i];
        if (!e.is_object()) continue;
        const auto n = e.find("name");
        if (n == e.end() || !n->is_string() || n->get_ref<const std::string&>() != name) continue;
        const auto body = e.find(inner);
        if (body == e.end() || !body->is_object())
          fail(std::string(list) + "[" + std::to_string(i) + "]." + inner,
               "missing; each entry needs a mapping there");
        return *body;
      }
    fail(list, "no entry named \"" + name + "\"; the names there are " + names(list));
  }

  std::string names(const char* list) const {
    std::string out;
    const auto it = doc_.find(list);
    if (it != doc_.end() && it->is_array())
      for (const json& e : *it)
        if (e.is_object() && e.contains("name") && e["name"].is_string())
          out += (out.empty() ? "\"" : ", \"") + e["name"].get<std::string>() + "\"";
    return out.empty() ? "none" : out;
  }

  std::string text(const json& at, const char* key, const std::string& field) const {
    const auto it = at.find(key);
    if (it == at.end() || it->is_null()) return {};
    if (!it->is_string()) fail(field + "." + key, "must be a string, not " + input::describe(*it));
    return it->get<std::string>();
  }

  // A file field, relative to the kubeconfig's folder as kubectl reads it.
  std::filesystem::path file(const json& at, const char* key, const std::string& field) const {
    const std::string name = text(at, key, field);
    if (name.empty()) return {};
    const std::filesystem::path p(name);
    return p.is_absolute() ? p : path_.parent_path() / p;
  }

  // Inline data (base64) or a file; empty if neither is given.
  std::string pem(const json& at, const char* data_key, const char* file_key,
                  const std::string& field) const {
    if (const std::string data = text(at, data_key, field); !data.empty()) {
      std::string decoded;
      if (!base64_decode(data, decoded))
        fail(field + "." + data_key, "is not base64; encode the PEM file with base64 -w0");
      return decoded;
    }
    if (const std::filesystem::path f = file(at, file_key, field); !f.empty())
      return read_file(f, field + "." + file_key);
    return {};
  }

  static bool base64_decode(std::string text, std::string& out) {
    std::erase_if(text, [](char c) { return c == '\n' || c == '\r' || c == ' '; });
    if (text.size() % 4 != 0) return false;
    out.resize(text.size() / 4 * 3);
    const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                  reinterpret_cast<const unsigned char*>(text.data()),
                                  static_cast<int>(text.size()));
    if (n < 0) return false;
    size_t size = static_cast<size_t>(n);
    // EVP_DecodeBlock counts the padding as zero bytes.
    for (size_t i = text.size(); i > 0 && text[i - 1] == '='; --i) --size;
    out.resize(size);
    return true;
  }

  const json& doc() const { return doc_; }

 private:
  std::filesystem::path path_;
  json doc_;
};

}  // namespace

bool parse_server_url(const std::string& url, ClientConfig& out) {
  std::string_view rest = url;
  if (rest.starts_with("https://")) {
    out.tls = true;
    rest.remove_prefix(8);
  } else if (rest.starts_with("http://")) {
    out.tls = false;
    rest.remove_prefix(7);
  } else {
    return false;
  }
  const size_t slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  out.base_path = slash == std::string_view::npos ? "" : std::string(rest.substr(slash));
  while (out.base_path.ends_with('/')) out.base_path.pop_back();
  std::string_view port;
  if (authority.starts_with('[')) {
    const size_t close = authority.find(']');
    if (close == std::string_view::npos) return false;
    out.host = std::string(authority.substr(1, close - 1));
    if (close + 1 < authority.size()) {
      if (authority[close + 1] != ':') return false;
      port = authority.substr(close + 2);
    }
  } else {
    const size_t colon = authority.rfind(':');
    out.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) port = authority.substr(colon + 1);
  }
  if (out.host.empty()) return false;
  if (port.empty()) {
    out.port = out.tls ? "443" : "80";
  } else {
    for (const char c : port)
      if (c < '0' || c > '9') return false;
    const long n = std::atol(std::string(port).c_str());
    if (n <= 0 || n > 65535) return false;
    out.port = std::string(port);
  }
  return true;
}

ClientConfig load_kubeconfig(const std::filesystem::path& path, const std::string& context) {
  const std::string text = read_file(path, "the kubeconfig");
  std::vector<input::Document> docs =
      input::read_documents(text, path.string(), input::kConfigLimits);
  if (docs.size() != 1 || !docs[0].value.is_object())
    throw InputError(path.string() + ": a kubeconfig is one YAML mapping (kind: Config)");
  const Kubeconfig kc(path, std::move(docs[0].value));

  std::string name = context;
  if (name.empty()) name = kc.text(kc.doc(), "current-context", "");
  if (name.empty())
    kc.fail("current-context",
            "not set; pass --context NAME (the contexts are " + kc.names("contexts") + ")");
  const json& ctx = kc.entry("contexts", name, "context");
  const std::string ctx_field = "contexts[" + name + "].context";
  const std::string cluster_name = kc.text(ctx, "cluster", ctx_field);
  const std::string user_name = kc.text(ctx, "user", ctx_field);
  if (cluster_name.empty()) kc.fail(ctx_field + ".cluster", "missing; name a cluster");

  ClientConfig out;
  out.origin = "kubeconfig " + path.string() + ", context " + name;
  const json& cluster = kc.entry("clusters", cluster_name, "cluster");
  const std::string cluster_field = "clusters[" + cluster_name + "].cluster";
  const std::string server = kc.text(cluster, "server", cluster_field);
  if (server.empty()) kc.fail(cluster_field + ".server", "missing; give https://host:port");
  if (!parse_server_url(server, out))
    kc.fail(cluster_field + ".server",
            "\"" + server + "\" is not a URL of the form https://host[:port]");
  out.server_name = kc.text(cluster, "tls-server-name", cluster_field);
  out.ca_pem =
      kc.pem(cluster, "certificate-authority-data", "certificate-authority", cluster_field);
  if (const auto it = cluster.find("insecure-skip-tls-verify"); it != cluster.end()) {
    if (!it->is_boolean())
      kc.fail(cluster_field + ".insecure-skip-tls-verify", "must be true or false");
    out.insecure_skip_tls_verify = it->get<bool>();
  }

  if (!user_name.empty()) {
    const json& user = kc.entry("users", user_name, "user");
    const std::string user_field = "users[" + user_name + "].user";
    if (user.contains("exec"))
      kc.fail(user_field + ".exec",
              "exec credential plugins are not supported by Scoria; give a token, a tokenFile "
              "or a client certificate (for a service account: kubectl create token NAME)");
    if (user.contains("auth-provider"))
      kc.fail(user_field + ".auth-provider",
              "auth providers are not supported by Scoria; give a token, a tokenFile or a "
              "client certificate");
    if (user.contains("username") || user.contains("password"))
      kc.fail(user_field + ".username",
              "basic authentication is not supported by Scoria (nor by current Kubernetes); "
              "give a token or a client certificate");
    out.client_cert_pem = kc.pem(user, "client-certificate-data", "client-certificate", user_field);
    out.client_key_pem = kc.pem(user, "client-key-data", "client-key", user_field);
    if (out.client_cert_pem.empty() != out.client_key_pem.empty())
      kc.fail(user_field, "a client certificate needs its key and a key its certificate");
    out.token = kc.text(user, "token", user_field);
    out.token_file = kc.file(user, "tokenFile", user_field);
    if (out.token.empty() && !out.token_file.empty())
      out.token = trimmed(read_file(out.token_file, user_field + ".tokenFile"));
  }
  return out;
}

std::optional<ClientConfig> in_cluster_config(const std::filesystem::path& account_dir) {
  const char* host = std::getenv("KUBERNETES_SERVICE_HOST");
  const char* port = std::getenv("KUBERNETES_SERVICE_PORT");
  if (host == nullptr || port == nullptr || *host == '\0' || *port == '\0') return std::nullopt;
  ClientConfig out;
  const std::string h = host;
  const std::string url =
      "https://" + (h.find(':') != std::string::npos ? "[" + h + "]" : h) + ":" + port;
  if (!parse_server_url(url, out))
    throw InputError("KUBERNETES_SERVICE_HOST/PORT: " + url + " is not a server address");
  out.origin = "in-cluster config (" + url + ")";
  out.ca_pem = read_file(account_dir / "ca.crt", "the service account's CA");
  out.token_file = account_dir / "token";
  out.token = trimmed(read_file(out.token_file, "the service account's token"));
  return out;
}

}  // namespace scoria::kube
