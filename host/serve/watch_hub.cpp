#include "serve/watch_hub.h"

#include <nlohmann/json.hpp>

namespace scoria::serve {

namespace {
constexpr size_t kBatch = 1000;
}

void WatchHub::add(std::shared_ptr<http::Stream> stream, int64_t after) {
  add(
      std::move(stream), after,
      [](const store::Event& e) -> std::optional<std::string> {
        nlohmann::json line = {{"type", e.type},
                               {"kind", e.kind},
                               {"key", e.key},
                               {"resourceVersion", e.resource_version},
                               {"object", nlohmann::json::parse(e.json, nullptr, false)}};
        return line.dump() + "\n";
      },
      std::nullopt);
}

void WatchHub::add(std::shared_ptr<http::Stream> stream, int64_t after, Render render,
                   std::optional<Clock::time_point> deadline) {
  watchers_.push_back({std::move(stream), after, std::move(render), deadline});
  send(watchers_.back());
}

void WatchHub::expire(Clock::time_point now) {
  for (Watcher& w : watchers_)
    if (w.deadline && *w.deadline <= now) w.stream->close();
  std::erase_if(watchers_, [](const Watcher& w) { return !w.stream->open(); });
}

void WatchHub::send(Watcher& w) {
  for (;;) {
    const std::vector<store::Event> events = store_.events_since(w.cursor, kBatch);
    if (events.empty() || !w.stream->open()) return;
    std::string chunk;
    for (const store::Event& e : events) {
      if (auto line = w.render(e)) chunk += *line;
      w.cursor = e.resource_version;
    }
    if (!chunk.empty()) w.stream->write(std::move(chunk));
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
