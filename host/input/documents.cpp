#include "input/documents.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <exception>
#include <memory>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "input/block_yaml.h"
#include "input/core_schema.h"
#include "input/document_split.h"
#include "input/field_path.h"
#include "input/json_reader.h"
#include "input/ordered_batches.h"
#include "input/tree_builder.h"
#include "input/tree_json.h"
#include "input/utf8.h"
#include "input/yaml_events.h"
#include "model/error.h"

namespace scoria::input {

namespace {

using nlohmann::json;

std::string quote(std::string_view s) { return "\"" + std::string(s) + "\""; }

struct ChunkResult {
  std::exception_ptr error;
  bool mismatch = false;  // the split disagreed with the parser: parse the text whole
};

// ===========================================================================
// Splitting and parsing in parallel
// ===========================================================================

/// Parses one chunk and hands its documents to `use` (slot `slot`), on the
/// calling thread, so a tree lives no longer than its chunk's parse.
/// The trees of a chunk: read by the block reader when the text lies
/// within what it reads, else by libfyaml.
ChunkTrees read_chunk(std::string_view origin, const Chunk& chunk, const Limits& limits) {
  {
    TreeBuilder block(origin, chunk, limits);
    if (read_block_yaml(chunk.text, limits, chunk.first_doc, block)) {
      ChunkTrees trees = block.take();
      if (chunk.expected < 0 || trees.docs.size() == static_cast<size_t>(chunk.expected))
        return trees;
    }
  }
  return TreeBuilder(origin, chunk, limits).run();
}

ChunkResult parse_chunk(std::string_view origin, const Chunk& chunk, const Limits& limits,
                        size_t slot, const TreeDocumentUse& use) {
  ChunkResult result;
  try {
    ChunkTrees trees = read_chunk(origin, chunk, limits);
    if (chunk.expected >= 0 && trees.docs.size() != static_cast<size_t>(chunk.expected)) {
      result.mismatch = true;
      return result;
    }
    for (TreeDocument& d : trees.docs) {
      d.in_slot = trees.docs.size();
      use(slot, d);
    }
  } catch (...) {
    result.error = std::current_exception();
  }
  return result;
}

/// How many bytes of `text` are its byte order mark.
size_t bom_size(std::string_view text) { return text.starts_with("\xEF\xBB\xBF") ? 3 : 0; }

/// One JSON value (what API clients send) skips the YAML parser; its bytes
/// are checked first, as the YAML reader checks them.
std::optional<json> one_json_value(std::string_view text, std::string_view origin,
                                   const Limits& limits) {
  const std::string_view body = text.substr(bom_size(text));
  const size_t first = body.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || (body[first] != '{' && body[first] != '[')) return {};
  refuse_byte_faults(text, origin, find_byte_faults(text));
  return read_strict_json(body, limits);
}

/// stream_documents for a text that is not one JSON value, its size checked.
void stream_yaml(std::string_view text, std::string_view origin, const Limits& limits,
                 const std::function<void(size_t)>& slots, const TreeDocumentUse& use) {
  const size_t skip = bom_size(text);
  const std::vector<Chunk> chunks = split_documents(text, origin, skip);
  slots(chunks.size());
  std::vector<ChunkResult> results(chunks.size());
  // A chunk is up to 64 KB of documents: two at a time keep the cores
  // busy to the end.
  run_ordered_batches(
      chunks.size(),
      [&](size_t i) {
        results[i] = parse_chunk(origin, chunks[i], limits, i, use);
        return !results[i].error && !results[i].mismatch;
      },
      2);
  for (ChunkResult& r : results) {
    if (r.mismatch) {
      // The split disagreed with the parser (rare: odd markers): the whole
      // text, as one chunk, decides.
      slots(1);
      ChunkResult whole = parse_chunk(origin, Chunk{text.substr(skip), 1, 0, -1}, limits, 0, use);
      if (whole.error) std::rethrow_exception(whole.error);
      return;
    }
    if (r.error) std::rethrow_exception(r.error);
  }
}

}  // namespace

void stream_documents(std::string_view text, std::string_view origin, const Limits& limits,
                      const std::function<void(size_t)>& slots, const TreeDocumentUse& use) {
  check_size(text, origin, limits);
  if (std::optional<json> value = one_json_value(text, origin, limits)) {
    NodeArena arena;
    slots(1);
    use(0, TreeDocument{from_json(*value, arena), 1});
    return;
  }
  stream_yaml(text, origin, limits, slots, use);
}

std::vector<Document> read_documents(std::string_view text, std::string_view origin,
                                     const Limits& limits) {
  check_size(text, origin, limits);
  std::vector<Document> out;
  if (std::optional<json> value = one_json_value(text, origin, limits)) {
    out.push_back(Document{std::move(*value), 1});
    return out;
  }
  std::vector<std::vector<Document>> by_slot;
  stream_yaml(
      text, origin, limits, [&](size_t n) { by_slot.assign(n, {}); },
      [&](size_t slot, const TreeDocument& d) {
        by_slot[slot].push_back(Document{to_json(d.value), d.number});
      });
  for (auto& slot : by_slot)
    for (Document& d : slot) out.push_back(std::move(d));
  return out;
}

std::string scalar_text(const Node& v) {
  switch (v.type()) {
    case Node::Type::kString:
      return std::string(v.str());
    case Node::Type::kBool:
      return v.as_bool() ? "true" : "false";
    case Node::Type::kInt:
      return std::to_string(v.as_int());
    case Node::Type::kUint:
      return std::to_string(v.as_uint());
    case Node::Type::kFloat:
      return json(v.as_double()).dump();
    default:
      return {};
  }
}

std::string describe(const Node& v) {
  switch (v.type()) {
    case Node::Type::kMap:
      return "a mapping";
    case Node::Type::kList:
      return "a list";
    case Node::Type::kNull:
      return "empty";
    default:
      return quote(scalar_text(v));
  }
}

std::string scalar_text(const json& v) {
  switch (v.type()) {
    case json::value_t::string:
      return v.get_ref<const std::string&>();
    case json::value_t::boolean:
      return v.get<bool>() ? "true" : "false";
    case json::value_t::number_integer:
      return std::to_string(v.get<int64_t>());
    case json::value_t::number_unsigned:
      return std::to_string(v.get<uint64_t>());
    case json::value_t::number_float:
      return v.dump();
    default:
      return {};
  }
}

std::string describe(const json& v) {
  switch (v.type()) {
    case json::value_t::object:
      return "a mapping";
    case json::value_t::array:
      return "a list";
    case json::value_t::null:
      return "empty";
    default:
      return quote(scalar_text(v));
  }
}

}  // namespace scoria::input
