#include "serve/explain_waits.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "scheduler/explanation_report.h"

namespace scoria::serve {

void ExplainWaits::add(std::string pod, http::Respond respond, unsigned version) {
  waits_.push_back({std::move(pod), std::move(respond), version});
}

std::optional<std::string> ExplainWaits::next() const {
  if (waits_.empty()) return std::nullopt;
  return waits_.front().pod;
}

void ExplainWaits::answer(const cycle::Explanation& x) {
  const unsigned status = x.found ? 200 : 404;
  const std::string body =
      x.found ? scheduler::explanation_json(x).dump(2) + "\n"
              : nlohmann::json{{"error", "no pod " + x.task + " in the cluster"}}.dump() + "\n";
  std::erase_if(waits_, [&](Wait& w) {
    if (w.pod != x.task) return false;
    w.respond(http::make_response(status, body, "application/json", w.version));
    return true;
  });
}

void ExplainWaits::fail(std::string_view why) {
  const std::string body =
      nlohmann::json{{"error", "no session can explain it now: " + std::string(why)}}.dump() + "\n";
  for (Wait& w : waits_) w.respond(http::make_response(503, body, "application/json", w.version));
  waits_.clear();
}

}  // namespace scoria::serve
