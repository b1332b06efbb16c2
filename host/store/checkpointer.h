// Checkpoints of the store's write-ahead log on a thread of their own.
// SQLite checkpoints in the committing thread by default (every 1000 WAL
// pages): at the API's write rates that is the service's loop, tens of
// milliseconds at a time. Here the writer only says the log has grown and a
// connection of this thread copies it into the database (PASSIVE: never
// waiting for the writer or readers, nor making them wait).
#pragma once

#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <thread>

namespace scoria::store {

class Checkpointer {
 public:
  /// Starts the thread; its connection to `path` opens on first use.
  explicit Checkpointer(std::filesystem::path path);
  /// Stops the thread (after the checkpoint under way, if any).
  ~Checkpointer();
  Checkpointer(const Checkpointer&) = delete;
  Checkpointer& operator=(const Checkpointer&) = delete;

  /// Asks for a checkpoint soon; cheap, and calls while one is pending
  /// count once.
  void request();
  /// Checkpoints run so far (for tests).
  size_t done() const;

 private:
  void run();

  std::filesystem::path path_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool requested_ = false;
  bool stopping_ = false;
  size_t done_ = 0;
  std::thread thread_;
};

}  // namespace scoria::store
