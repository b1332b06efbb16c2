// The server's certificate and key, read from their files and read again
// when the files change (a certificate rotated by cert-manager or by hand),
// as kube-apiserver and Volcano's webhook serve theirs. Internal to
// host/http.
#pragma once

#include <boost/asio/ssl/context.hpp>

#include <ctime>
#include <memory>
#include <string>

namespace scoria::http::detail {

class ServerTls {
 public:
  /// Reads both files; throws ListenError naming the file and the fix when
  /// they cannot be used.
  ServerTls(std::string cert_file, std::string key_file);

  /// The context for a new connection: read again first when either file
  /// changed. New files that cannot be used are logged (once per change)
  /// and the last good context stays, so a rotation half done (a new
  /// certificate beside the old key) refuses no one.
  std::shared_ptr<boost::asio::ssl::context> current();

 private:
  struct Stamp {
    std::timespec cert{}, key{};
    bool operator==(const Stamp& o) const;
  };
  Stamp stamp() const;
  std::shared_ptr<boost::asio::ssl::context> load() const;  // throws ListenError

  std::string cert_file_, key_file_;
  Stamp loaded_{};  // the files' times when last read (well or not)
  std::shared_ptr<boost::asio::ssl::context> context_;
};

}  // namespace scoria::http::detail
