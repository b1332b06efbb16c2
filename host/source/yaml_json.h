// YAML to JSON with the YAML 1.2 core schema: how the loader keeps a pod's
// whole object (Pod::json) and how the local store keeps every object.
#pragma once

#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>

namespace scoria::source {

/// `n` as JSON: plain scalars become booleans and numbers where the core
/// schema reads them so, quoted scalars stay strings, maps and sequences
/// keep their order and shape; an empty node is null.
nlohmann::json yaml_to_json(const YAML::Node& n);

}  // namespace scoria::source
