// Requests to explain a pod's placement (GET /api/v1/explain/{ns}/{name}),
// each answered by the next session that explains that pod. A session
// explains one pod, the longest waiting; the others wait for the sessions
// after it. Every request is answered: with the explanation, or with 503
// when no session will run to give one.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cycle/explanation.h"
#include "http/server.h"

namespace scoria::serve {

class ExplainWaits {
 public:
  /// Waits for an explanation of `pod` ("ns/name"); `respond` sends the
  /// answer, in HTTP `version`.
  void add(std::string pod, http::Respond respond, unsigned version);

  /// The pod the next session should explain, if any request waits.
  std::optional<std::string> next() const;

  /// Answers every request for the pod `x` explains (200, JSON).
  void answer(const cycle::Explanation& x);

  /// Answers every request with 503 and `why` (the sessions are failing,
  /// or this replica does not schedule).
  void fail(std::string_view why);

 private:
  struct Wait {
    std::string pod;
    http::Respond respond;
    unsigned version;
  };
  std::vector<Wait> waits_;
};

}  // namespace scoria::serve
