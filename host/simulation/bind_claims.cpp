#include "simulation/bind_claims.h"

namespace scoria::simulation {

void BindClaims::add(const cycle::Outcome::Bind& bind) {
  for (const auto& v : bind.volumes) volumes[v.claim] = {{"node", v.node}, {"pv", v.volume}};
  for (const auto& c : bind.claims) {
    if (!c.allocated_now) continue;  // reserved only: allocated before
    nlohmann::ordered_json devices = nlohmann::ordered_json::array();
    for (const model::DeviceResult& d : c.devices)
      devices.push_back(
          {{"request", d.request}, {"driver", d.driver}, {"pool", d.pool}, {"device", d.device}});
    claims[c.claim] = {{"node", c.node}, {"devices", std::move(devices)}};
  }
}

}  // namespace scoria::simulation
