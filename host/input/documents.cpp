#include "input/documents.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <exception>
#include <memory>
#include <optional>
#include <unordered_map>

#include "input/field_path.h"
#include "input/json_reader.h"
#include "input/ordered_batches.h"
#include "input/utf8.h"
#include "input/yaml_events.h"
#include "model/error.h"

namespace scoria::input {

namespace {

using nlohmann::json;

std::string quote(std::string_view s) { return "\"" + std::string(s) + "\""; }

// ===========================================================================
// Scalars: the YAML 1.2 core schema
// ===========================================================================

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

/// A plain scalar as JSON: core-schema null, booleans and numbers, else a
/// string.
json plain_scalar(std::string_view s) {
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return nullptr;
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  const char c = s[0];
  if (!(c == '+' || c == '-' || c == '.' || (c >= '0' && c <= '9'))) return std::string(s);
  std::string_view body = s;
  if (body[0] == '+' || body[0] == '-') body.remove_prefix(1);
  if (all_digits(body)) {
    int64_t v = 0;
    std::string_view t = s[0] == '+' ? s.substr(1) : s;
    if (auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
        ec == std::errc() && end == t.data() + t.size())
      return v;
  }
  // [0-9]* ( . [0-9]* )? ( [eE] [-+]? [0-9]+ )? with a digit before the exponent.
  const size_t e = body.find_first_of("eE");
  const std::string_view mant = body.substr(0, e);
  const size_t dot = mant.find('.');
  const std::string_view ip = mant.substr(0, dot);
  const std::string_view fp = dot == std::string_view::npos ? "" : mant.substr(dot + 1);
  bool numeric = (all_digits(ip) || ip.empty()) && (all_digits(fp) || fp.empty()) &&
                 !(ip.empty() && fp.empty());
  if (numeric && e != std::string_view::npos) {
    std::string_view ex = body.substr(e + 1);
    if (!ex.empty() && (ex[0] == '+' || ex[0] == '-')) ex.remove_prefix(1);
    numeric = all_digits(ex);
  }
  if (numeric) {
    std::string_view t = s[0] == '+' ? s.substr(1) : s;
    double v = 0;
    if (auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
        ec == std::errc() && end == t.data() + t.size() && std::isfinite(v))
      return v;
  }
  return std::string(s);
}

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

/// Builds JSON values from parser events, enforcing the limits.
class TreeBuilder {
 public:
  TreeBuilder(std::string_view origin, const Chunk& chunk, const Limits& limits)
      : origin_(origin), chunk_(chunk), limits_(limits), aliases_(limits) {}

  /// Parses the chunk; throws InputError.
  std::vector<Document> run() {
    YamlEvents events(chunk_.text, origin_);
    while (YamlEvents::Event e = events.next()) on_event(*e);
    if (events.failed())
      events.throw_syntax_error(origin_, chunk_.first_doc + std::max(0, docs_seen_ - 1),
                                chunk_.first_line);
    return std::move(out_);
  }

 private:
  struct Frame {
    json value;
    bool is_map = false;
    bool has_key = false;
    bool merge_key = false;  // the pending key is "<<"
    std::string key;         // the pending key of a mapping
    std::string anchor;
    size_t nodes = 1;  // this node and everything under it
    std::vector<json> merges;
  };
  struct Anchored {
    json value;
    size_t nodes = 1;
  };

  [[noreturn]] void fail_at(fy_token* token, const std::string& what) const {
    throw InputError(where(origin_, chunk_.first_doc + std::max(0, docs_seen_ - 1), mark_of(token),
                           chunk_.first_line) +
                     what);
  }

  /// "document N (object): field PATH: what", the form decoders use.
  [[noreturn]] void fail_field(const std::string& what) const {
    const int doc = chunk_.first_doc + std::max(0, docs_seen_ - 1);
    throw InputError(std::string(origin_) + ": document " + std::to_string(doc) +
                     " (object): field " + path() + ": " + what);
  }

  std::string path() const {
    std::string out;
    for (const Frame& f : stack_) {
      if (f.is_map) {
        if (f.has_key) FieldPath::append_key(out, f.key);
      } else {
        FieldPath::append_index(out, f.value.size());
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

  static std::string anchor_name(fy_token* anchor) { return std::string(text_of(anchor)); }

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
    f.value = is_map ? json::object() : json::array();
    f.anchor = anchor_name(anchor);
    stack_.push_back(std::move(f));
  }

  void close() {
    Frame f = std::move(stack_.back());
    stack_.pop_back();
    // Merge keys: entries of the merged mappings that the mapping does not
    // set itself, earlier merges first.
    for (json& m : f.merges) {
      for (auto it = m.begin(); it != m.end(); ++it)
        f.value.emplace(it.key(), std::move(it.value()));
    }
    if (!f.anchor.empty()) anchors_[f.anchor] = Anchored{f.value, f.nodes};
    deliver(std::move(f.value), f.nodes, nullptr);
  }

  void deliver(json value, size_t nodes, fy_token* token) {
    if (stack_.empty()) {
      root_ = std::move(value);
      has_root_ = true;
      return;
    }
    Frame& top = stack_.back();
    top.nodes += nodes;
    if (!top.is_map) {
      top.value.push_back(std::move(value));
      return;
    }
    if (top.merge_key) {
      const auto add = [&](json& m) {
        if (!m.is_object())
          fail_at(token, "a merge key (<<) takes a mapping or a list of mappings");
        top.merges.push_back(std::move(m));
      };
      if (value.is_array()) {
        for (json& m : value) add(m);
      } else {
        add(value);
      }
    } else if (!top.value.emplace(top.key, std::move(value)).second &&
               limits_.refuse_duplicate_keys) {
      fail_field("appears twice; keep one");
    }
    top.has_key = false;
    top.merge_key = false;
  }

  void set_key(std::string key, bool merge) {
    Frame& top = stack_.back();
    top.key = std::move(key);
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
        root_ = nullptr;
        anchors_.clear();  // anchors do not cross documents
        break;
      case FYET_DOCUMENT_END:
        out_.push_back(
            {has_root_ ? std::move(root_) : json(nullptr), chunk_.first_doc + docs_seen_ - 1});
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
      set_key(std::string(text), plain && text == "<<");
      return;
    }
    json value = as_string ? json(std::string(text)) : plain_scalar(text);
    if (s.anchor != nullptr) anchors_[anchor_name(s.anchor)] = Anchored{value, 1};
    deliver(std::move(value), 1, s.value);
  }

  void on_alias(fy_token* anchor) {
    const std::string name = anchor_name(anchor);
    const auto it = anchors_.find(name);
    if (it == anchors_.end())
      fail_at(anchor, "alias *" + name + " names no anchor before it; define &" + name + " first");
    if (auto refusal = aliases_.charge(it->second.nodes)) fail_at(anchor, *refusal);
    if (awaiting_key()) {
      if (!it->second.value.is_string())
        fail_at(anchor, "a key is a list or a mapping; keys are plain strings");
      set_key(it->second.value.get<std::string>(), false);
      return;
    }
    deliver(it->second.value, it->second.nodes, anchor);
  }

  std::string_view origin_;
  const Chunk& chunk_;
  const Limits& limits_;
  std::vector<Frame> stack_;
  std::unordered_map<std::string, Anchored> anchors_;
  AliasBudget aliases_;
  std::string scratch_;  // a scalar's text when libfyaml's cannot be used
  json root_;
  bool has_root_ = false;
  int docs_seen_ = 0;
  std::vector<Document> out_;
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
                        size_t slot, const DocumentUse& use) {
  ChunkResult result;
  try {
    std::vector<Document> docs = TreeBuilder(origin, chunk, limits).run();
    if (chunk.expected >= 0 && docs.size() != static_cast<size_t>(chunk.expected)) {
      result.mismatch = true;
      return result;
    }
    for (Document& d : docs) use(slot, std::move(d));
  } catch (...) {
    result.error = std::current_exception();
  }
  return result;
}

}  // namespace

void stream_documents(std::string_view text, std::string_view origin, const Limits& limits,
                      const std::function<void(size_t)>& slots, const DocumentUse& use) {
  check_text(text, origin, limits);
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  // One JSON value (what API clients send) skips the YAML parser.
  if (const size_t first = text.find_first_not_of(" \t\r\n");
      first != std::string_view::npos && (text[first] == '{' || text[first] == '[')) {
    if (std::optional<json> value = read_strict_json(text, limits)) {
      slots(1);
      use(0, Document{std::move(*value), 1});
      return;
    }
  }
  const std::vector<Chunk> chunks = split_documents(text);
  slots(chunks.size());
  std::vector<ChunkResult> results(chunks.size());
  run_ordered_batches(chunks.size(), [&](size_t i) {
    results[i] = parse_chunk(origin, chunks[i], limits, i, use);
    return !results[i].error && !results[i].mismatch;
  });
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

std::vector<Document> read_documents(std::string_view text, std::string_view origin,
                                     const Limits& limits) {
  std::vector<std::vector<Document>> by_slot;
  stream_documents(
      text, origin, limits, [&](size_t n) { by_slot.assign(n, {}); },
      [&](size_t slot, Document&& d) { by_slot[slot].push_back(std::move(d)); });
  std::vector<Document> out;
  out.reserve(by_slot.size());
  for (auto& slot : by_slot)
    for (Document& d : slot) out.push_back(std::move(d));
  return out;
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
