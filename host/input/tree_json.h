// Between Nodes (node_tree.h) and JSON: nlohmann::json values, for the
// readers that keep those (API bodies, the store), and JSON text, written
// exactly as nlohmann::json's dump() writes the same value (sorted keys,
// no spaces, its escapes and number forms): objects keep that text for
// plugins, whichever way they were read.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "input/node_tree.h"

namespace scoria::input {

nlohmann::json to_json(const Node& node);

/// `value` as a Node whose strings, entries and items live in `arena`.
Node from_json(const nlohmann::json& value, NodeArena& arena);

/// Appends `node` as JSON text to `out`: to_json(node).dump(), without the
/// detour.
void write_json(const Node& node, std::string& out);
std::string dump(const Node& node);

}  // namespace scoria::input
