// Lines that describe a standing condition (a HyperNode naming a member
// that does not exist), reported when they first appear rather than every
// session: fresh() returns those not seen the previous time and forgets
// those gone, so a condition that ends and comes back is reported again.
#pragma once

#include <set>
#include <span>
#include <string>
#include <vector>

namespace scoria::log {

class ReportOnce {
 public:
  std::vector<std::string> fresh(std::span<const std::string> now) {
    std::vector<std::string> out;
    std::set<std::string> next(now.begin(), now.end());
    for (const std::string& line : next)
      if (!seen_.contains(line)) out.push_back(line);
    seen_ = std::move(next);
    return out;
  }

 private:
  std::set<std::string> seen_;
};

}  // namespace scoria::log
