#include "serve/config_watch.h"

#include <sys/inotify.h>
#include <unistd.h>

#include <boost/asio/buffer.hpp>
#include <string>
#include <string_view>

#include "log/log.h"

namespace scoria::serve {

void ConfigWatch::start(const std::filesystem::path& config, std::function<void()> changed) {
  const int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (fd < 0) {
    log::write(log::kWarning, "serve",
               "inotify is not available; the config reloads on SIGHUP only");
    return;
  }
  const std::filesystem::path dir =
      config.parent_path().empty() ? std::filesystem::path(".") : config.parent_path();
  if (inotify_add_watch(fd, dir.c_str(), IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE) < 0) {
    ::close(fd);
    log::write(log::kWarning, "serve",
               "cannot watch " + dir.string() + "; the config reloads on SIGHUP only");
    return;
  }
  file_ = config.filename().string();
  changed_ = std::move(changed);
  watch_.assign(fd);
  read();
}

void ConfigWatch::read() {
  watch_.async_read_some(
      boost::asio::buffer(buffer_), [this](const boost::system::error_code& ec, size_t n) {
        if (ec) return;
        bool ours = false;
        for (size_t at = 0; at + sizeof(inotify_event) <= n;) {
          const auto* event = reinterpret_cast<const inotify_event*>(buffer_.data() + at);
          if (event->len > 0 && (file_ == event->name || std::string_view(event->name) == "..data"))
            ours = true;
          at += sizeof(inotify_event) + event->len;
        }
        if (ours) changed_();
        read();
      });
}

}  // namespace scoria::serve
