// The Dynamic Resource Allocation objects a session reads
// (model/devices.h), as the cache holds them: views into its maps, valid
// for the session, never written by it.
#pragma once

#include <map>
#include <string>

#include "model/devices.h"

namespace scoria::cycle {

struct Devices {
  const std::map<std::string, model::DeviceClass>* classes = nullptr;              // by name
  const std::map<std::string, model::ResourceSlice>* slices = nullptr;             // by name
  const std::map<std::string, model::ResourceClaim>* claims = nullptr;             // "ns/name"
  const std::map<std::string, model::ResourceClaimTemplate>* templates = nullptr;  // "ns/name"

  bool empty() const { return slices == nullptr || slices->empty(); }
};

}  // namespace scoria::cycle
