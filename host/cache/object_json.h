// The JSON of an object the cache changes itself (the completions for
// sources where no controller runs): read leniently, written as sources
// write it.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace scoria::cache {

/// The object `text` holds; an empty object if it holds none.
inline nlohmann::json parsed_object(const std::string& text) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  return j.is_object() ? j : nlohmann::json::object();
}

/// `j` as compact text, invalid UTF-8 replaced.
inline std::string object_text(const nlohmann::json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace scoria::cache
