#include "http/server_tls.h"

#include <sys/stat.h>

#include <boost/system/system_error.hpp>

#include "http/server.h"
#include "log/log.h"

namespace scoria::http::detail {

namespace ssl = boost::asio::ssl;

namespace {

std::timespec modified(const std::string& file) {
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) return {};
  return st.st_mtim;
}

}  // namespace

bool ServerTls::Stamp::operator==(const Stamp& o) const {
  return cert.tv_sec == o.cert.tv_sec && cert.tv_nsec == o.cert.tv_nsec &&
         key.tv_sec == o.key.tv_sec && key.tv_nsec == o.key.tv_nsec;
}

ServerTls::ServerTls(std::string cert_file, std::string key_file)
    : cert_file_(std::move(cert_file)), key_file_(std::move(key_file)) {
  loaded_ = stamp();
  context_ = load();
}

ServerTls::Stamp ServerTls::stamp() const { return {modified(cert_file_), modified(key_file_)}; }

std::shared_ptr<ssl::context> ServerTls::load() const {
  auto ctx = std::make_shared<ssl::context>(ssl::context::tls_server);
  // TLS 1.2 and up, as kube-apiserver's default minimum.
  ctx->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                   ssl::context::no_sslv3 | ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1 |
                   ssl::context::single_dh_use);
  const auto cannot_use = [](const std::string& flag, const std::string& file,
                             const boost::system::system_error& e) {
    return ListenError(flag + " " + file + ": cannot be used (" + e.code().message() +
                       "); give a PEM certificate (with its chain) and its PEM private key");
  };
  const auto not_its_key = [&] {
    return ListenError("--tls-private-key-file " + key_file_ + " is not the key of " + cert_file_ +
                       "; give the certificate's own key");
  };
  try {
    ctx->use_certificate_chain_file(cert_file_);
  } catch (const boost::system::system_error& e) {
    throw cannot_use("--tls-cert-file", cert_file_, e);
  }
  try {
    ctx->use_private_key_file(key_file_, ssl::context::pem);
  } catch (const boost::system::system_error& e) {
    // OpenSSL compares the key with the certificate as it reads it.
    if (e.code().message().find("key values mismatch") != std::string::npos) throw not_its_key();
    throw cannot_use("--tls-private-key-file", key_file_, e);
  }
  if (SSL_CTX_check_private_key(ctx->native_handle()) != 1) throw not_its_key();
  return ctx;
}

std::shared_ptr<ssl::context> ServerTls::current() {
  const Stamp now = stamp();
  if (now == loaded_) return context_;
  loaded_ = now;
  try {
    context_ = load();
    log::write(log::kInfo, "http", "serving the certificate read again from " + cert_file_);
  } catch (const ListenError& e) {
    log::write(log::kWarning, "http",
               std::string(e.what()) + "; the certificate read before is served until it can be");
  }
  return context_;
}

}  // namespace scoria::http::detail
