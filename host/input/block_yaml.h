// A reader for the YAML that machines write (kubectl, the client libraries,
// generators): block mappings and lists, and one-line plain, quoted and
// flow values, with comments. It reads such text several times faster than
// libfyaml's event parser, and declines everything else (anchors, tags,
// block and multi-line scalars, tabs, directives, and every error), which
// libfyaml then reads. What it accepts reads to the trees libfyaml's
// reading gives: fuzz/block_yaml_fuzz.cpp compares the two.
#pragma once

#include <string_view>

#include "input/limits.h"

namespace scoria::input {

class TreeBuilder;

/// Reads `text`, a run of documents numbered from `first_doc`, into `out`.
/// False when the text lies outside what this reader reads, holds an error
/// (a key twice included), or comes within the limits' reach: `out` is then
/// half built and not to be used, and libfyaml's reading says what is wrong.
bool read_block_yaml(std::string_view text, const Limits& limits, int first_doc, TreeBuilder& out);

}  // namespace scoria::input
