// Cluster objects read from YAML text as an object file, for the tests of
// the loader and its decoders.
#pragma once

#include <string>
#include <string_view>

#include "model/error.h"
#include "model/objects.h"
#include "source/object_loader.h"

namespace scoria::test_support {

inline constexpr double kMi = 1024.0 * 1024;
inline constexpr double kGi = 1024.0 * 1024 * 1024;

/// The objects in `text`, read as the object file `file`.
inline model::ClusterObjects parse(std::string_view text,
                                   const std::string& file = "cluster.yaml") {
  model::ClusterObjects out;
  source::parse_objects(text, file, out);
  return out;
}

/// The InputError message that parsing `text` throws ("" if none).
inline std::string parse_error(std::string_view text, const std::string& file = "cluster.yaml") {
  try {
    parse(text, file);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

/// The amount of `name` in `list`, -1 when absent.
inline double amount(const model::ResourceList& list, const std::string& name) {
  for (const auto& [n, v] : list)
    if (n == name) return v;
  return -1;
}

}  // namespace scoria::test_support
