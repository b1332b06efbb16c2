#include "input/tree_builder.h"

#include <algorithm>
#include <cstddef>
#include <span>

#include "input/core_schema.h"
#include "input/field_path.h"
#include "model/error.h"

namespace scoria::input {

ChunkTrees TreeBuilder::run() {
  YamlEvents events(chunk_.text, origin_);
  while (YamlEvents::Event e = events.next()) on_event(*e);
  if (events.failed())
    events.throw_syntax_error(origin_, chunk_.first_doc + std::max(0, docs_seen_ - 1),
                              chunk_.first_line);
  return std::move(out_);
}

void TreeBuilder::value(std::string_view text, bool plain) {
  const Node v = plain ? plain_scalar(text, out_.arena) : Node::string(out_.arena.copy(text));
  deliver(v, 1, nullptr);
}

int TreeBuilder::doc_number() const { return chunk_.first_doc + std::max(0, docs_seen_ - 1); }

void TreeBuilder::fail_at(fy_token* token, const std::string& what) const {
  throw InputError(where(origin_, doc_number(), mark_of(token), chunk_.first_line) + what);
}

void TreeBuilder::fail_field(const std::string& what) const {
  throw InputError(std::string(origin_) + ": document " + std::to_string(doc_number()) +
                   " (object): field " + path() + ": " + what);
}

std::string TreeBuilder::path() const {
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

std::string_view TreeBuilder::token_text(fy_token* t) {
  const std::string_view s = scalar_text(t, chunk_.text, scratch_);
  if (auto refusal = scalar_refusal(s.size(), limits_)) fail_at(t, *refusal);
  return s;
}

bool TreeBuilder::awaiting_key() const {
  return !stack_.empty() && stack_.back().is_map && !stack_.back().has_key;
}

void TreeBuilder::begin_document() {
  ++docs_seen_;
  has_root_ = false;
  root_ = Node();
  anchors_.clear();  // anchors do not cross documents
}

void TreeBuilder::finish_document() {
  out_.docs.push_back({has_root_ ? root_ : Node(), chunk_.first_doc + docs_seen_ - 1});
}

void TreeBuilder::open(bool is_map, fy_token* token, fy_token* anchor) {
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

bool TreeBuilder::has_own_key(Frame& f, std::string_view key) {
  if (f.keys) return f.keys->count(key) > 0;
  for (size_t i = f.first; i < entries_.size(); ++i)
    if (entries_[i].key == key) return true;
  return false;
}

void TreeBuilder::close() {
  Frame f = std::move(stack_.back());
  stack_.pop_back();
  Node value;
  if (f.is_map) {
    const auto by_key = [](const NodeEntry& a, const NodeEntry& b) { return a.key < b.key; };
    const auto own = entries_.begin() + static_cast<std::ptrdiff_t>(f.first);
    std::sort(own, entries_.end(), by_key);
    if (f.merges == 0) {
      value = Node::mapping(out_.arena.copy(std::span<const NodeEntry>(entries_).subspan(f.first)));
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

void TreeBuilder::deliver(const Node& value, size_t nodes, fy_token* token) {
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
      if (!m.is_object()) fail_at(token, "a merge key (<<) takes a mapping or a list of mappings");
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

void TreeBuilder::set_key(std::string_view key, bool merge) {
  Frame& top = stack_.back();
  top.key = out_.arena.copy(key);
  top.has_key = true;
  top.merge_key = merge;
}

void TreeBuilder::on_event(fy_event& e) {
  switch (e.type) {
    case FYET_DOCUMENT_START:
      begin_document();
      if (static_cast<size_t>(doc_number()) > limits_.max_documents) {
        fail_at(
            e.document_start.document_start,
            "more than " + std::to_string(limits_.max_documents) + " documents; split the input");
      }
      break;
    case FYET_DOCUMENT_END:
      finish_document();
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

void TreeBuilder::on_scalar(const fy_event_scalar_data& s) {
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

void TreeBuilder::on_alias(fy_token* anchor) {
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

}  // namespace scoria::input
