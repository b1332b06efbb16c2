// The block reader (input/block_yaml.h) against libfyaml's reading of the
// same text: what the unit test and the fuzz target both ask.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "input/block_yaml.h"
#include "input/limits.h"
#include "input/tree_builder.h"
#include "input/tree_json.h"
#include "model/error.h"

namespace scoria::test {

/// What a reading of a text gave: each document's number and JSON, or the
/// refusal.
struct Reading {
  std::string trees;
  std::optional<std::string> error;
  bool operator==(const Reading&) const = default;
};

inline std::string describe(const input::ChunkTrees& trees) {
  std::string out;
  for (const input::TreeDocument& d : trees.docs)
    out += std::to_string(d.number) + " " + input::dump(d.value) + "\n";
  return out;
}

/// libfyaml's reading of `text` (a whole chunk, as the reader is given one).
inline Reading read_with_libfyaml(std::string_view text, const input::Limits& limits) {
  const input::Chunk chunk{text, 1, 0, -1};
  try {
    return {describe(input::TreeBuilder("t", chunk, limits).run()), std::nullopt};
  } catch (const InputError& e) {
    return {{}, e.what()};
  }
}

/// The block reader's reading of `text`; nullopt when it declines.
inline std::optional<Reading> read_with_block_reader(std::string_view text,
                                                     const input::Limits& limits) {
  const input::Chunk chunk{text, 1, 0, -1};
  input::TreeBuilder builder("t", chunk, limits);
  if (!input::read_block_yaml(text, limits, 1, builder)) return std::nullopt;
  return Reading{describe(builder.take()), std::nullopt};
}

}  // namespace scoria::test
