#include "input/yaml_tree.h"

#include <algorithm>
#include <unordered_map>
#include <utility>

#include "input/yaml_events.h"
#include "model/error.h"

namespace scoria::input {

bool YamlNode::is_null() const {
  return kind == Kind::Scalar && style == Style::Plain && tag.empty() &&
         (text.empty() || text == "~" || text == "null" || text == "Null" || text == "NULL");
}

namespace {

/// Builds nodes from parser events, enforcing the limits.
class NodeBuilder {
 public:
  NodeBuilder(std::string_view text, std::string_view origin, const Limits& limits)
      : text_(text), origin_(origin), limits_(limits), aliases_(limits) {}

  std::vector<YamlNode> run() {
    YamlEvents events(text_, origin_);
    while (YamlEvents::Event e = events.next()) on_event(*e);
    if (events.failed()) events.throw_syntax_error(origin_, std::max(docs_, 1));
    return std::move(out_);
  }

 private:
  struct Frame {
    YamlNode node;
    std::string anchor;
    size_t nodes = 1;  // this node and everything under it
    bool has_key = false;
    YamlNode key;
  };
  struct Anchored {
    YamlNode node;
    size_t nodes = 1;
  };

  [[noreturn]] void fail_at(fy_token* token, const std::string& what) const {
    throw InputError(where(origin_, std::max(docs_, 1), mark_of(token)) + what);
  }

  static void place(YamlNode& n, fy_token* token) {
    const Mark m = mark_of(token);
    n.line = m.line;
    n.column = m.column;
    n.offset = m.offset;
  }

  /// A scalar's value (or a tag's name), refused past the limit.
  std::string bounded_text(fy_token* t) {
    const std::string_view s = scalar_text(t, text_, scratch_);
    if (auto refusal = scalar_refusal(s.size(), limits_)) fail_at(t, *refusal);
    return std::string(s);
  }

  void on_event(fy_event& e) {
    switch (e.type) {
      case FYET_DOCUMENT_START:
        if (static_cast<size_t>(++docs_) > limits_.max_documents) {
          fail_at(e.document_start.document_start,
                  "more than " + std::to_string(limits_.max_documents) + " documents");
        }
        anchors_.clear();  // anchors do not cross documents
        break;
      case FYET_MAPPING_START:
        open(YamlNode::Kind::Map, e.mapping_start.mapping_start, e.mapping_start.anchor);
        break;
      case FYET_SEQUENCE_START:
        open(YamlNode::Kind::List, e.sequence_start.sequence_start, e.sequence_start.anchor);
        break;
      case FYET_MAPPING_END:
      case FYET_SEQUENCE_END: {
        Frame f = std::move(stack_.back());
        stack_.pop_back();
        if (!f.anchor.empty()) anchors_[f.anchor] = Anchored{f.node, f.nodes};
        deliver(std::move(f.node), f.nodes);
        break;
      }
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

  void open(YamlNode::Kind kind, fy_token* token, fy_token* anchor) {
    if (stack_.size() >= limits_.max_depth) {
      fail_at(token, "nested deeper than " + std::to_string(limits_.max_depth) +
                         " levels; this is refused");
    }
    Frame f;
    f.node.kind = kind;
    place(f.node, token);
    f.anchor = std::string(text_of(anchor));
    stack_.push_back(std::move(f));
  }

  void on_scalar(const fy_event_scalar_data& s) {
    YamlNode n;
    n.text = bounded_text(s.value);
    // A tag token is only there when the text writes one (tag_implicit is
    // left uninitialised by this libfyaml: never read it).
    if (s.tag != nullptr) n.tag = bounded_text(s.tag);
    if (s.value != nullptr) {
      switch (fy_token_scalar_style(s.value)) {
        case FYSS_PLAIN:
        case FYSS_ANY:
          n.style = YamlNode::Style::Plain;
          break;
        case FYSS_LITERAL:
          n.style = YamlNode::Style::Literal;
          break;
        case FYSS_FOLDED:
          n.style = YamlNode::Style::Folded;
          break;
        default:
          n.style = YamlNode::Style::Quoted;
          break;
      }
      place(n, s.value);
    }
    if (s.anchor != nullptr) anchors_[std::string(text_of(s.anchor))] = Anchored{n, 1};
    deliver(std::move(n), 1);
  }

  void on_alias(fy_token* anchor) {
    const std::string name(text_of(anchor));
    const auto it = anchors_.find(name);
    if (it == anchors_.end())
      fail_at(anchor, "alias *" + name + " names no anchor before it; define &" + name + " first");
    if (auto refusal = aliases_.charge(it->second.nodes)) fail_at(anchor, *refusal);
    YamlNode copy = it->second.node;
    place(copy, anchor);  // the copy is where the alias is written
    deliver(std::move(copy), it->second.nodes);
  }

  void deliver(YamlNode n, size_t nodes) {
    if (stack_.empty()) {
      if (!n.is_null()) out_.push_back(std::move(n));
      return;
    }
    Frame& top = stack_.back();
    top.nodes += nodes;
    if (top.node.kind == YamlNode::Kind::List) {
      top.node.items.push_back(std::move(n));
    } else if (!top.has_key) {
      top.key = std::move(n);
      top.has_key = true;
    } else {
      top.node.entries.push_back({std::move(top.key), std::move(n)});
      top.has_key = false;
    }
  }

  std::string_view text_;
  std::string_view origin_;
  const Limits& limits_;
  std::vector<Frame> stack_;
  std::unordered_map<std::string, Anchored> anchors_;
  AliasBudget aliases_;
  std::string scratch_;  // a scalar's text when libfyaml's cannot be used
  int docs_ = 0;
  std::vector<YamlNode> out_;
};

}  // namespace

std::vector<YamlNode> read_yaml_trees(std::string_view text, std::string_view origin,
                                      const Limits& limits) {
  check_text(text, origin, limits);
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  return NodeBuilder(text, origin, limits).run();
}

}  // namespace scoria::input
