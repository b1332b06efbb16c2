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

#include "input/core_schema.h"
#include "input/field_path.h"
#include "input/json_reader.h"
#include "input/ordered_batches.h"
#include "input/tree_json.h"
#include "input/utf8.h"
#include "input/yaml_events.h"
#include "model/error.h"

namespace scoria::input {

namespace {

using nlohmann::json;

std::string quote(std::string_view s) { return "\"" + std::string(s) + "\""; }

// ===========================================================================
// Events to a tree
// ===========================================================================

/// A run of the text parsed on its own: one document, or the whole text.
struct Chunk {
  std::string_view text;
  int first_doc = 1;   // number of its first document
  int first_line = 0;  // 0-based line of its first character in the text
  int expected = 1;    // documents it must hold; -1: any (the whole text)
};

struct ChunkResult {
  std::exception_ptr error;
  bool mismatch = false;  // the split disagreed with the parser: parse the text whole
};

/// The documents of a chunk, and the arena their nodes live in.
struct ChunkTrees {
  NodeArena arena;
  std::vector<TreeDocument> docs;
};

/// Builds nodes from parser events, enforcing the limits. A mapping's or
/// list's children wait on a stack shared by all open ones (the innermost
/// on top) and move to the arena, a mapping's sorted, when it closes.
class TreeBuilder {
 public:
  TreeBuilder(std::string_view origin, const Chunk& chunk, const Limits& limits)
      : origin_(origin), chunk_(chunk), limits_(limits), aliases_(limits) {}

  /// Parses the chunk; throws InputError.
  ChunkTrees run() {
    YamlEvents events(chunk_.text, origin_);
    while (YamlEvents::Event e = events.next()) on_event(*e);
    if (events.failed())
      events.throw_syntax_error(origin_, chunk_.first_doc + std::max(0, docs_seen_ - 1),
                                chunk_.first_line);
    return std::move(out_);
  }

 private:
  // Past this many keys a mapping looks its keys up in a set rather than
  // among its entries, so that a huge one costs time in proportion.
  static constexpr size_t kKeySetFrom = 16;

  struct Frame {
    bool is_map = false;
    bool has_key = false;
    bool merge_key = false;   // the pending key is "<<"
    std::string_view key;     // the pending key of a mapping (in the arena)
    std::string_view anchor;  // (in the arena)
    size_t nodes = 1;         // this node and everything under it
    size_t first = 0;         // its first child on entries_ or items_
    size_t count = 0;         // its children so far
    size_t merges = 0;        // mappings to merge into it (on merges_)
    std::unique_ptr<std::unordered_set<std::string_view>> keys;  // past kKeySetFrom
  };
  struct Anchored {
    Node value;
    size_t nodes = 1;
  };

  int doc_number() const { return chunk_.first_doc + std::max(0, docs_seen_ - 1); }

  [[noreturn]] void fail_at(fy_token* token, const std::string& what) const {
    throw InputError(where(origin_, doc_number(), mark_of(token), chunk_.first_line) + what);
  }

  /// "document N (object): field PATH: what", the form decoders use.
  [[noreturn]] void fail_field(const std::string& what) const {
    throw InputError(std::string(origin_) + ": document " + std::to_string(doc_number()) +
                     " (object): field " + path() + ": " + what);
  }

  std::string path() const {
    std::string out;
    for (const Frame& f : stack_) {
      if (f.is_map) {
        if (f.has_key) FieldPath::append_key(out, f.key);
      } else {
        FieldPath::append_index(out, f.count);
      }
    }
    return out;
  }

  /// A scalar's value (or a tag's name), refused past the limit.
  std::string_view token_text(fy_token* t) {
    const std::string_view s = scalar_text(t, chunk_.text, scratch_);
    if (auto refusal = scalar_refusal(s.size(), limits_)) fail_at(t, *refusal);
    return s;
  }

  bool awaiting_key() const {
    return !stack_.empty() && stack_.back().is_map && !stack_.back().has_key;
  }

  void open(bool is_map, fy_token* token, fy_token* anchor) {
    if (awaiting_key()) {
      fail_at(token, "a key is a list or a mapping; keys are plain strings");
    }
    if (stack_.size() >= limits_.max_depth) {
      fail_at(token, "nested deeper than " + std::to_string(limits_.max_depth) +
                         " levels; objects are never that deep, so this is refused");
    }
    Frame f;
    f.is_map = is_map;
    f.first = is_map ? entries_.size() : items_.size();
    f.anchor = out_.arena.copy(text_of(anchor));  // the event's token goes before the close
    stack_.push_back(std::move(f));
  }

  /// Whether the open mapping `f` has `key` among its own entries.
  bool has_own_key(Frame& f, std::string_view key) {
    if (f.keys) return f.keys->count(key) > 0;
    for (size_t i = f.first; i < entries_.size(); ++i)
      if (entries_[i].key == key) return true;
    return false;
  }

  void close() {
    Frame f = std::move(stack_.back());
    stack_.pop_back();
    Node value;
    if (f.is_map) {
      const auto by_key = [](const NodeEntry& a, const NodeEntry& b) { return a.key < b.key; };
      const auto own = entries_.begin() + static_cast<std::ptrdiff_t>(f.first);
      std::sort(own, entries_.end(), by_key);
      if (f.merges == 0) {
        value =
            Node::mapping(out_.arena.copy(std::span<const NodeEntry>(entries_).subspan(f.first)));
      } else {
        // Merge keys: entries of the merged mappings that the mapping does
        // not set itself, earlier merges first.
        std::vector<NodeEntry> all(own, entries_.end());
        const size_t own_count = all.size();
        std::unordered_set<std::string_view> merged;
        for (size_t m = merges_.size() - f.merges; m < merges_.size(); ++m) {
          for (const NodeEntry& e : merges_[m].entries()) {
            const auto end = all.begin() + static_cast<std::ptrdiff_t>(own_count);
            const auto at = std::lower_bound(all.begin(), end, e, by_key);
            if ((at == end || at->key != e.key) && merged.insert(e.key).second) all.push_back(e);
          }
        }
        std::sort(all.begin() + static_cast<std::ptrdiff_t>(own_count), all.end(), by_key);
        std::inplace_merge(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(own_count),
                           all.end(), by_key);
        merges_.resize(merges_.size() - f.merges);
        value = Node::mapping(out_.arena.copy(std::span<const NodeEntry>(all)));
      }
      entries_.resize(f.first);
    } else {
      value = Node::list(out_.arena.copy(std::span<const Node>(items_).subspan(f.first)));
      items_.resize(f.first);
    }
    if (!f.anchor.empty()) anchors_[std::string(f.anchor)] = Anchored{value, f.nodes};
    deliver(value, f.nodes, nullptr);
  }

  void deliver(const Node& value, size_t nodes, fy_token* token) {
    if (stack_.empty()) {
      root_ = value;
      has_root_ = true;
      return;
    }
    Frame& top = stack_.back();
    top.nodes += nodes;
    if (!top.is_map) {
      items_.push_back(value);
      ++top.count;
      return;
    }
    if (top.merge_key) {
      const auto add = [&](const Node& m) {
        if (!m.is_object())
          fail_at(token, "a merge key (<<) takes a mapping or a list of mappings");
        merges_.push_back(m);
        ++top.merges;
      };
      if (value.is_array()) {
        for (const Node& m : value.items()) add(m);
      } else {
        add(value);
      }
    } else if (!has_own_key(top, top.key)) {
      entries_.push_back({top.key, value});
      ++top.count;
      if (top.keys) {
        top.keys->insert(top.key);
      } else if (top.count > kKeySetFrom) {
        top.keys = std::make_unique<std::unordered_set<std::string_view>>();
        for (size_t i = top.first; i < entries_.size(); ++i) top.keys->insert(entries_[i].key);
      }
    } else if (limits_.refuse_duplicate_keys) {
      fail_field("appears twice; keep one");
    }
    top.has_key = false;
    top.merge_key = false;
  }

  void set_key(std::string_view key, bool merge) {
    Frame& top = stack_.back();
    top.key = out_.arena.copy(key);
    top.has_key = true;
    top.merge_key = merge;
  }

  void on_event(fy_event& e) {
    switch (e.type) {
      case FYET_DOCUMENT_START:
        ++docs_seen_;
        if (static_cast<size_t>(chunk_.first_doc + docs_seen_ - 1) > limits_.max_documents) {
          fail_at(
              e.document_start.document_start,
              "more than " + std::to_string(limits_.max_documents) + " documents; split the input");
        }
        has_root_ = false;
        root_ = Node();
        anchors_.clear();  // anchors do not cross documents
        break;
      case FYET_DOCUMENT_END:
        out_.docs.push_back({has_root_ ? root_ : Node(), chunk_.first_doc + docs_seen_ - 1});
        break;
      case FYET_MAPPING_START:
        open(true, e.mapping_start.mapping_start, e.mapping_start.anchor);
        break;
      case FYET_SEQUENCE_START:
        open(false, e.sequence_start.sequence_start, e.sequence_start.anchor);
        break;
      case FYET_MAPPING_END:
      case FYET_SEQUENCE_END:
        close();
        break;
      case FYET_SCALAR:
        on_scalar(e.scalar);
        break;
      case FYET_ALIAS:
        on_alias(e.alias.anchor);
        break;
      default:
        break;
    }
  }

  void on_scalar(const fy_event_scalar_data& s) {
    const std::string_view text = token_text(s.value);
    const bool plain = fy_token_scalar_style(s.value) == FYSS_PLAIN;
    bool as_string = !plain;
    // A tag token is only there when the text writes one. (tag_implicit is
    // left uninitialised by this libfyaml: never read it.)
    if (s.tag != nullptr) {
      const std::string_view tag = token_text(s.tag);
      as_string = tag.ends_with(":str") || tag == "!!str" || tag == "!";
    }
    if (awaiting_key()) {
      set_key(text, plain && text == "<<");
      return;
    }
    const Node value =
        as_string ? Node::string(out_.arena.copy(text)) : plain_scalar(text, out_.arena);
    if (s.anchor != nullptr) anchors_[std::string(text_of(s.anchor))] = Anchored{value, 1};
    deliver(value, 1, s.value);
  }

  void on_alias(fy_token* anchor) {
    const std::string name(text_of(anchor));
    const auto it = anchors_.find(name);
    if (it == anchors_.end())
      fail_at(anchor, "alias *" + name + " names no anchor before it; define &" + name + " first");
    if (auto refusal = aliases_.charge(it->second.nodes)) fail_at(anchor, *refusal);
    if (awaiting_key()) {
      if (!it->second.value.is_string())
        fail_at(anchor, "a key is a list or a mapping; keys are plain strings");
      set_key(it->second.value.str(), false);
      return;
    }
    // The nodes are shared, not copied: nothing changes them once built.
    deliver(it->second.value, it->second.nodes, anchor);
  }

  std::string_view origin_;
  const Chunk& chunk_;
  const Limits& limits_;
  std::vector<Frame> stack_;
  std::vector<NodeEntry> entries_;  // the open mappings' entries, innermost last
  std::vector<Node> items_;         // the open lists' items, innermost last
  std::vector<Node> merges_;        // the open mappings' merged mappings
  std::unordered_map<std::string, Anchored> anchors_;
  AliasBudget aliases_;
  std::string scratch_;  // a scalar's text when libfyaml's cannot be used
  Node root_;
  bool has_root_ = false;
  int docs_seen_ = 0;
  ChunkTrees out_;
};

// ===========================================================================
// Splitting and parsing in parallel
// ===========================================================================

bool is_marker(std::string_view line, std::string_view marker) {
  return line.substr(0, 3) == marker && (line.size() == 3 || line[3] == ' ' || line[3] == '\t' ||
                                         line[3] == '\r' || line[3] == '\n');
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
ChunkResult parse_chunk(std::string_view origin, const Chunk& chunk, const Limits& limits,
                        size_t slot, const TreeDocumentUse& use) {
  ChunkResult result;
  try {
    const ChunkTrees trees = TreeBuilder(origin, chunk, limits).run();
    if (chunk.expected >= 0 && trees.docs.size() != static_cast<size_t>(chunk.expected)) {
      result.mismatch = true;
      return result;
    }
    for (const TreeDocument& d : trees.docs) use(slot, d);
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
