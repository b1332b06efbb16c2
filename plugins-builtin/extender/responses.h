// The extender's answers, decoded as Volcano's Go structs decode them
// (encoding/json: fields matched exactly, else case-insensitively; missing
// fields are zero; a field of the wrong type, or a body that is not JSON,
// is an error). Each parse returns nullopt with `error` set on failure.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace scoria_extender {

/// Volcano's status codes (api.Success ... api.Skip).
enum VolcanoCode : int {
  kCodeSuccess = 0,
  kCodeError = 1,
  kCodeUnschedulable = 2,
  kCodeUnschedulableAndUnresolvable = 3,
  kCodeWait = 4,
  kCodeSkip = 5,
};

/// PredicateResponse {"status": message, "code": int}. `fits` when the
/// message is empty (whatever the code, as Volcano reads it); a message
/// with code 0 is an Error, for compatibility with extenders that send no
/// code.
struct PredicateAnswer {
  bool fits = true;
  int code = kCodeSuccess;
  std::string message;
};
std::optional<PredicateAnswer> parse_predicate(std::string_view body, std::string& error);

/// PrioritizeResponse {"nodeScore": {node: score}, "errorMessage": ""}: the
/// scores, or an error when errorMessage is set or nodeScore is absent.
std::optional<std::map<std::string, double, std::less<>>> parse_prioritize(std::string_view body,
                                                                           std::string& error);

/// PreemptableResponse / ReclaimableResponse {"status": vote, "victims":
/// [TaskInfo]}: the vote and the victims' UIDs.
struct VictimsAnswer {
  int status = 0;
  std::vector<std::string> victim_uids;
};
std::optional<VictimsAnswer> parse_victims(std::string_view body, std::string& error);

/// JobEnqueueableResponse {"status": vote}.
std::optional<int> parse_vote(std::string_view body, std::string& error);
/// QueueOverusedResponse {"overused": bool}.
std::optional<bool> parse_overused(std::string_view body, std::string& error);
/// JobReadyResponse {"status": bool}.
std::optional<bool> parse_ready(std::string_view body, std::string& error);
/// EventHandlerResponse {"errorMessage": ""} (and JobEnqueuedResponse {}):
/// the message, empty when there is none.
std::optional<std::string> parse_event(std::string_view body, std::string& error);

}  // namespace scoria_extender
