// The trees of a run of YAML documents, built from what a reader finds in
// it: libfyaml's events, or the block reader's calls (block_yaml.h) for
// the plain block YAML machines write. Both build through this one class,
// so a text reads to the same trees, and the same refusals, either way.
#pragma once

#include <libfyaml.h>

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "input/documents.h"
#include "input/limits.h"
#include "input/node_tree.h"
#include "input/yaml_events.h"

namespace scoria::input {

/// A run of the text parsed on its own: one document, or the whole text.
struct Chunk {
  std::string_view text;
  int first_doc = 1;   // number of its first document
  int first_line = 0;  // 0-based line of its first character in the text
  int expected = 1;    // documents it must hold; -1: any (the whole text)
};

/// The documents of a chunk, and the arena their nodes live in.
struct ChunkTrees {
  NodeArena arena;
  std::vector<TreeDocument> docs;
};

/// Builds nodes, enforcing the limits. A mapping's or list's children wait
/// on a stack shared by all open ones (the innermost on top) and move to
/// the arena, a mapping's sorted, when it closes.
class TreeBuilder {
 public:
  TreeBuilder(std::string_view origin, const Chunk& chunk, const Limits& limits)
      : origin_(origin), chunk_(chunk), limits_(limits), aliases_(limits) {}
  TreeBuilder(const TreeBuilder&) = delete;
  TreeBuilder& operator=(const TreeBuilder&) = delete;

  /// Parses the chunk with libfyaml; throws InputError.
  ChunkTrees run();

  // The block reader's calls, in text order. A duplicate key throws the
  // InputError libfyaml's reading would; every other refusal (depth, the
  // number of documents, a scalar's size) the reader leaves to libfyaml's
  // reading, which can say where it is, by checking first.
  void start_document() { begin_document(); }
  void end_document() { finish_document(); }
  void open_mapping() { open(true, nullptr, nullptr); }
  void open_list() { open(false, nullptr, nullptr); }
  void close_node() { close(); }
  void key(std::string_view text) { set_key(text, false); }
  /// A value: `plain` resolves under the core schema, else a string.
  void value(std::string_view text, bool plain);
  /// Open mappings and lists.
  size_t depth() const { return stack_.size(); }
  /// The trees read; call once, after the last document.
  ChunkTrees take() { return std::move(out_); }

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

  int doc_number() const;
  [[noreturn]] void fail_at(fy_token* token, const std::string& what) const;
  /// "document N (object): field PATH: what", the form decoders use.
  [[noreturn]] void fail_field(const std::string& what) const;
  std::string path() const;
  /// A scalar's value (or a tag's name), refused past the limit.
  std::string_view token_text(fy_token* t);
  bool awaiting_key() const;
  void begin_document();
  void finish_document();
  void open(bool is_map, fy_token* token, fy_token* anchor);
  /// Whether the open mapping `f` has `key` among its own entries.
  bool has_own_key(Frame& f, std::string_view key);
  void close();
  void deliver(const Node& value, size_t nodes, fy_token* token);
  void set_key(std::string_view key, bool merge);
  void on_event(fy_event& e);
  void on_scalar(const fy_event_scalar_data& s);
  void on_alias(fy_token* anchor);

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

}  // namespace scoria::input
