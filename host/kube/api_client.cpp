#include "kube/api_client.h"

#include <nlohmann/json.hpp>

#include "input/json_reader.h"
#include "log/log.h"

namespace scoria::kube {

ApiClient::ApiClient(ClientConfig config, double qps, double burst)
    : config_(std::move(config)),
      tls_(config_.tls ? make_tls_context(config_) : nullptr),
      token_(std::make_shared<TokenSource>(config_)),
      limiter_(qps, burst) {
  if (config_.tls && config_.insecure_skip_tls_verify)
    log::write(log::kWarning, kKubernetesLog,
               config_.origin +
                   ": insecure-skip-tls-verify is set; the server's certificate is not checked, "
                   "so anyone between here and it can read and change what is sent");
}

std::unique_ptr<Connection> ApiClient::connect() const {
  return std::make_unique<Connection>(config_, tls_, token_);
}

nlohmann::json parse_answer(std::string_view body) {
  if (input::json_nesting(body) > kMaxNesting)
    return nlohmann::json(nlohmann::json::value_t::discarded);
  return nlohmann::json::parse(body, nullptr, false);
}

std::string status_message(const Response& response) {
  const auto parsed = parse_answer(response.body);
  if (parsed.is_object() && parsed.contains("message") && parsed["message"].is_string())
    return parsed["message"].get<std::string>();
  std::string text = response.body.substr(0, 200);
  if (text.empty()) text = "no body";
  return "HTTP " + std::to_string(response.status) + ": " + text;
}

ApiError::ApiError(const std::string& doing, Response response)
    : std::runtime_error(doing + ": " + status_message(response)), response_(std::move(response)) {}

}  // namespace scoria::kube
