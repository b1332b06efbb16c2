// Untrusted YAML and JSON as trees: the one way text becomes a tree in
// Scoria (object files, API bodies, Volcano configs). Parsed by libfyaml's
// event parser into Nodes in an arena (node_tree.h; nlohmann::json for the
// readers that keep values) under Limits, so a hostile input is refused in
// time proportional to its size: no alias bombs, no unbounded nesting, only
// valid UTF-8.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "input/limits.h"
#include "input/node_tree.h"
#include "input/syntax_error.h"
#include "model/error.h"

namespace scoria::input {

struct Document {
  nlohmann::json value;  // null for an empty document (a stray "---")
  int number = 0;        // 1-based, counted as YAML counts documents
};

/// Every document in `text`, in order. Plain scalars follow the YAML 1.2
/// core schema (true/false, integers, floats, null); quoted ones stay
/// strings; JSON reads as itself. Merge keys (<<) are honoured as the
/// Kubernetes YAML reader does. Throws InputError naming `origin`, the
/// document, the line and column (or the field) and the fix: for invalid
/// YAML, invalid UTF-8, a NUL byte, a duplicate key, a key that is not a
/// scalar, and every limit passed.
std::vector<Document> read_documents(std::string_view text, std::string_view origin,
                                     const Limits& limits);

/// A document as a Node tree (node_tree.h), whose nodes live only as long
/// as the call that receives it.
struct TreeDocument {
  Node value;  // null for an empty document
  int number = 0;
  // How many documents its slot holds, this one among them: a receiver
  // makes room for the slot's objects at once.
  size_t in_slot = 1;
};

/// Receives a document read by stream_documents: `slot` orders documents
/// across threads (slot by slot, in order within one).
using TreeDocumentUse = std::function<void(size_t slot, const TreeDocument& doc)>;

/// read_documents without keeping the trees, or making nlohmann::json of
/// them: the text is read on every core and each document handed to `use`
/// on the thread that read it, as soon as it is read. `slots(n)` is called before any `use` with
/// the number of slots (and again, with 1, if the text must be read whole after all: start over
/// then). An exception from `use` counts as an error of that document: the first error in text
/// order is rethrown.
void stream_documents(std::string_view text, std::string_view origin, const Limits& limits,
                      const std::function<void(size_t)>& slots, const TreeDocumentUse& use);

/// The text a scalar value stands for, as a string field reads it: strings
/// as they are, integers and booleans as written, floats in their shortest
/// form; empty for anything else.
std::string scalar_text(const nlohmann::json& v);
std::string scalar_text(const Node& v);

/// "a mapping", "a list", "\"text\"", "empty": what a value is, for messages.
std::string describe(const nlohmann::json& v);
std::string describe(const Node& v);

}  // namespace scoria::input
