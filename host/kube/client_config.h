// Where the Kubernetes API server is and how to prove who we are to it: what
// client-go's rest.Config holds, read from a kubeconfig (its current context
// or a named one), from in-cluster service-account files, or from --master.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace scoria::kube {

struct ClientConfig {
  bool tls = true;
  std::string host;         // as the URL gives it (a name, an IPv4 or an IPv6 address)
  std::string port;         // "443" when the URL gives none (80 for http)
  std::string base_path;    // a path prefix after the host ("" or "/prefix")
  std::string server_name;  // the name the server's certificate must carry (tls-server-name)
  std::string ca_pem;       // trusted CAs; empty: the system's
  std::string client_cert_pem;
  std::string client_key_pem;
  std::string token;                 // a bearer token, as given
  std::filesystem::path token_file;  // read again when it changes (projected tokens rotate)
  bool insecure_skip_tls_verify = false;
  std::string origin;  // where this came from, for messages ("kubeconfig FILE, context C")
};

/// The kubeconfig at `path`, its `context` (the current one when empty).
/// Throws InputError naming the file and the field: for a file that is
/// missing or does not parse, a context, cluster or user that is not
/// there, and for what this client cannot do (exec credential plugins,
/// auth providers, basic auth), saying so.
ClientConfig load_kubeconfig(const std::filesystem::path& path, const std::string& context);

/// The service account of the pod this runs in (KUBERNETES_SERVICE_HOST and
/// _PORT, the CA and token under `account_dir`); nullopt when not in a pod.
std::optional<ClientConfig> in_cluster_config(
    const std::filesystem::path& account_dir = "/var/run/secrets/kubernetes.io/serviceaccount");

/// Parses "https://host[:port][/prefix]" (or http://) into `out`'s
/// server fields; false if `url` is not such a URL.
bool parse_server_url(const std::string& url, ClientConfig& out);

}  // namespace scoria::kube
