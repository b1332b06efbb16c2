// Volcano's --feature-gates, which serve and simulate share: a list of
// NAME=true|false. SchedulingGatesQueueAdmission takes effect either way;
// Volcano's other gates are accepted at the value Scoria always behaves as
// and refused at the other, and a name Volcano does not know is refused,
// as Kubernetes' components refuse it.
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace scoria::cli {

class FeatureGates {
 public:
  /// Takes `flag` if it is --feature-gates, reading its value through
  /// `value`; false if it is another flag. Throws InputError naming the
  /// gate on a bad entry.
  bool take(std::string_view flag, const std::function<std::string()>& value);
  /// SchedulingGatesQueueAdmission, off unless given.
  bool queue_admission_gates() const { return queue_admission_gates_; }

 private:
  bool queue_admission_gates_ = false;
};

}  // namespace scoria::cli
