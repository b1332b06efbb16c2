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

bool is_marker(std::string_view line, std::string_view marker) {
  // Byte by byte: this runs on every line of the text, before the cores
  // share the work.
  return line.size() >= 3 && line[0] == marker[0] && line[1] == marker[1] && line[2] == marker[2] &&
         (line.size() == 3 || line[3] == ' ' || line[3] == '\t' || line[3] == '\r' ||
          line[3] == '\n');
}

/// Joins runs of consecutive documents into chunks of about kChunkBytes,
/// so a parser is started per chunk rather than per document: starting one
/// (its diagnostics, its document state and default tags) costs as much as
/// parsing a small object.
std::vector<Chunk> group_documents(std::string_view text, const std::vector<Chunk>& docs) {
  constexpr size_t kChunkBytes = 64 * 1024;
  std::vector<Chunk> chunks;
  for (const Chunk& d : docs) {
    if (!chunks.empty()) {
      Chunk& last = chunks.back();
      const size_t begin = static_cast<size_t>(last.text.data() - text.data());
      const size_t end = static_cast<size_t>(d.text.data() - text.data()) + d.text.size();
      if (last.text.size() < kChunkBytes && last.first_doc + last.expected == d.first_doc) {
        last.text = text.substr(begin, end - begin);
        ++last.expected;
        continue;
      }
    }
    chunks.push_back(d);
  }
  return chunks;
}

/// Cuts a multi-document stream at its document markers ("---" and "..." at
/// the start of a line, which YAML forbids inside any content), so that the
/// documents can be parsed apart. Numbers documents as YAML does: every "---"
/// opens one, and text before the first marker (or after "...") is one only
/// if it holds more than comments. Directives (%YAML) make the boundaries
/// subtle: such a text stays whole.
std::vector<Chunk> split_documents(std::string_view text) {
  std::vector<Chunk> chunks;
  size_t start = 0;
  int start_line = 0;
  bool explicit_doc = false;
  bool content = false;
  int next_doc = 1;
  auto close = [&](size_t end) {
    if (explicit_doc || content) {
      chunks.push_back({text.substr(start, end - start), next_doc, start_line, 1});
      ++next_doc;
    }
  };
  size_t pos = 0;
  int line_no = 0;
  while (pos < text.size()) {
    const size_t eol = text.find('\n', pos);
    const size_t next = eol == std::string_view::npos ? text.size() : eol + 1;
    const std::string_view line = text.substr(pos, next - pos);
    if (!line.empty() && line[0] == '%') return {{text, 1, 0, -1}};
    if (is_marker(line, "---")) {
      close(pos);
      start = pos;
      start_line = line_no;
      explicit_doc = true;
      content = false;
    } else if (is_marker(line, "...")) {
      close(next);
      start = next;
      start_line = line_no + 1;
      explicit_doc = false;
      content = false;
    } else if (!content) {
      const size_t first = line.find_first_not_of(" \t\r\n");
      content = first != std::string_view::npos && line[first] != '#';
    }
    pos = next;
    ++line_no;
  }
  close(text.size());
  return group_documents(text, chunks);
}

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

/// `text` checked (check_text), without its byte order mark.
std::string_view checked(std::string_view text, std::string_view origin, const Limits& limits) {
  check_text(text, origin, limits);
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  return text;
}

/// One JSON value (what API clients send) skips the YAML parser.
std::optional<json> one_json_value(std::string_view text, const Limits& limits) {
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || (text[first] != '{' && text[first] != '[')) return {};
  return read_strict_json(text, limits);
}

/// stream_documents for a checked text that is not one JSON value.
void stream_yaml(std::string_view text, std::string_view origin, const Limits& limits,
                 const std::function<void(size_t)>& slots, const TreeDocumentUse& use) {
  const std::vector<Chunk> chunks = split_documents(text);
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
      ChunkResult whole = parse_chunk(origin, Chunk{text, 1, 0, -1}, limits, 0, use);
      if (whole.error) std::rethrow_exception(whole.error);
      return;
    }
    if (r.error) std::rethrow_exception(r.error);
  }
}

}  // namespace

void stream_documents(std::string_view text, std::string_view origin, const Limits& limits,
                      const std::function<void(size_t)>& slots, const TreeDocumentUse& use) {
  text = checked(text, origin, limits);
  if (std::optional<json> value = one_json_value(text, limits)) {
    NodeArena arena;
    slots(1);
    use(0, TreeDocument{from_json(*value, arena), 1});
    return;
  }
  stream_yaml(text, origin, limits, slots, use);
}

std::vector<Document> read_documents(std::string_view text, std::string_view origin,
                                     const Limits& limits) {
  text = checked(text, origin, limits);
  std::vector<Document> out;
  if (std::optional<json> value = one_json_value(text, limits)) {
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
