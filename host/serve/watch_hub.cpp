#include "serve/watch_hub.h"

#include <nlohmann/json.hpp>

namespace scoria::serve {

namespace {
constexpr size_t kBatch = 1000;
}

void WatchHub::add(std::shared_ptr<http::Stream> stream, int64_t after) {
  watchers_.push_back({std::move(stream), after});
  send(watchers_.back());
}

void WatchHub::send(Watcher& w) {
  for (;;) {
    const std::vector<store::Event> events = store_.events_since(w.cursor, kBatch);
    if (events.empty() || !w.stream->open()) return;
    std::string chunk;
    for (const store::Event& e : events) {
      nlohmann::json line = {{"type", e.type},
                             {"kind", e.kind},
                             {"key", e.key},
                             {"resourceVersion", e.resource_version},
                             {"object", nlohmann::json::parse(e.json, nullptr, false)}};
      chunk += line.dump();
      chunk += '\n';
      w.cursor = e.resource_version;
    }
    w.stream->write(std::move(chunk));
  }
}

void WatchHub::pump() {
  std::erase_if(watchers_, [](const Watcher& w) { return !w.stream->open(); });
  for (Watcher& w : watchers_) send(w);
}

void WatchHub::close_all() {
  for (Watcher& w : watchers_) w.stream->close();
  watchers_.clear();
}

}  // namespace scoria::serve
