// Watches the scheduler config's file for changes, on the service's event
// loop: inotify on the file's directory, so that a save (close after write,
// or a rename into place as editors do) is seen, and so is a mounted
// ConfigMap's update, which swaps the directory's `..data` symlink and
// never touches the file's own name.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>

#include <array>
#include <filesystem>
#include <functional>

namespace scoria::serve {

class ConfigWatch {
 public:
  explicit ConfigWatch(boost::asio::io_context& io) : watch_(io) {}
  ConfigWatch(const ConfigWatch&) = delete;
  ConfigWatch& operator=(const ConfigWatch&) = delete;

  /// Calls `changed` on the loop after each change of `config`. Without
  /// inotify, or when the directory cannot be watched, logs that the config
  /// reloads on SIGHUP only, and never calls it.
  void start(const std::filesystem::path& config, std::function<void()> changed);
  void close() { watch_.close(); }

 private:
  void read();

  boost::asio::posix::stream_descriptor watch_;
  std::array<char, 4096> buffer_{};
  std::string file_;
  std::function<void()> changed_;
};

}  // namespace scoria::serve
