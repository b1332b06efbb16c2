// What `simulate` reports of the claims a bind decided (DESIGN.md section
// 5): PersistentVolumeClaims under "volumes", ResourceClaims allocated under
// "claims", each by "ns/name".
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "cycle/outcome.h"

namespace scoria::simulation {

struct BindClaims {
  std::map<std::string, nlohmann::ordered_json> volumes;
  std::map<std::string, nlohmann::ordered_json> claims;

  /// Adds what `bind` decided; a later bind's entry for a claim wins.
  void add(const cycle::Outcome::Bind& bind);
};

}  // namespace scoria::simulation
