#include "serve/config_reloads.h"

#include <exception>
#include <utility>

namespace scoria::serve {

void ConfigReloads::request(std::string why) {
  const auto load = [this]() -> Loaded {
    try {
      return {load_(), {}};
    } catch (const std::exception& e) {
      return {std::nullopt, e.what()};
    }
  };
  const auto done = [this, why](Loaded loaded) {
    if (loaded.config)
      adopt_(std::move(*loaded.config), why);
    else
      reject_(loaded.error);
    if (again_) request(*std::exchange(again_, std::nullopt));
  };
  if (!loading_.start(load, done)) again_ = std::move(why);
}

}  // namespace scoria::serve
