#include "input/block_yaml.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>

#include "input/tree_builder.h"
#include "model/error.h"

namespace scoria::input {

namespace {

/// Unwinds the reader when the text leaves the subset it reads.
struct Declined {};

[[noreturn]] void decline() { throw Declined{}; }

/// A set of bytes to scan for. std::string_view::find_first_of looks each
/// character of the text up in the set with a call of its own, which made
/// it the reader's costliest step on flow-style objects.
class ByteSet {
 public:
  constexpr explicit ByteSet(std::string_view bytes) {
    for (const char c : bytes) in_[static_cast<unsigned char>(c)] = true;
  }
  /// The position of the first byte of `v` from `from` in the set, or npos.
  size_t find_in(std::string_view v, size_t from = 0) const {
    for (size_t i = from; i < v.size(); ++i)
      if (in_[static_cast<unsigned char>(v[i])]) return i;
    return std::string_view::npos;
  }
  bool contains(char c) const { return in_[static_cast<unsigned char>(c)]; }

 private:
  std::array<bool, 256> in_{};
};

// Where a plain scalar in a flow collection ends; what a block key may not
// hold; where a double-quoted scalar's plain run stops; YAML's indicators,
// which may not start a plain scalar.
constexpr ByteSet kFlowScalarStops(",[]{}:#");
constexpr ByteSet kNotInKey("[]{},#'\"");
constexpr ByteSet kQuoteOrEscape("\"\\");
constexpr ByteSet kIndicators("?:,[]{}#&*!|>'\"%@`");

/// Whether the text holds a byte or character the reader leaves to
/// libfyaml: controls other than the line feed (tabs and carriage returns
/// included), DEL, C1 controls, the byte order mark, the non-characters
/// U+FFFE and U+FFFF, and the line and paragraph separators.
bool odd_at(const unsigned char* p, size_t i, size_t n) {
  const unsigned char c = p[i];
  if (c >= 0x20 && c < 0x7F) return false;
  if (c == '\n') return false;
  if (c < 0x20 || c == 0x7F) return true;
  if (c == 0xC2 && i + 1 < n && p[i + 1] >= 0x80 && p[i + 1] <= 0x9F) return true;
  if (c == 0xE2 && i + 2 < n && p[i + 1] == 0x80 && (p[i + 2] == 0xA8 || p[i + 2] == 0xA9))
    return true;
  return c == 0xEF && i + 2 < n &&
         ((p[i + 1] == 0xBB && p[i + 2] == 0xBF) ||
          (p[i + 1] == 0xBF && (p[i + 2] == 0xBE || p[i + 2] == 0xBF)));
}

bool has_odd_bytes(std::string_view text) {
  constexpr size_t kBlock = 16;
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  for (size_t i = 0; i < n;) {
    // A block at a time, with no branch per byte (the compiler makes it
    // vector code): nearly all of a text is printable ASCII and line feeds.
    if (i + kBlock <= n) {
      unsigned odd = 0;
      for (size_t k = 0; k < kBlock; ++k) {
        const unsigned char c = p[i + k];
        odd |= static_cast<unsigned>(c < 0x20 && c != '\n') | static_cast<unsigned>(c >= 0x7F);
      }
      if (odd == 0) {
        i += kBlock;
        continue;
      }
    }
    for (const size_t end = std::min(n, i + kBlock); i < end; ++i)
      if (odd_at(p, i, n)) return true;
  }
  return false;
}

bool is_item(std::string_view s) { return s == "-" || s.starts_with("- "); }

/// Characters that may not start a plain scalar or key here (YAML's
/// indicators); '-' is allowed when a character other than '-' or a space
/// follows it.
bool bad_start(std::string_view s) {
  if (s.empty()) return true;
  const char c = s[0];
  if (c == '-') return s.size() == 1 || s[1] == ' ' || s[1] == '-';
  return kIndicators.contains(c);
}

void utf8_append(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

class BlockReader {
 public:
  BlockReader(std::string_view text, const Limits& limits, int first_doc, TreeBuilder& out)
      : text_(text), limits_(limits), first_doc_(first_doc), out_(out) {}

  void run() {
    advance();
    bool in_doc = false;
    int docs = 0;
    while (!line_.eof) {
      if (line_.marker || !in_doc) {
        if (in_doc) out_.end_document();
        if (static_cast<size_t>(first_doc_ + docs) > limits_.max_documents) decline();
        ++docs;
        out_.start_document();
        in_doc = true;
        if (line_.marker) {
          advance();
          continue;
        }
      }
      block(line_.col);
      if (!line_.eof && !line_.marker) decline();  // more after the root
    }
    if (in_doc) out_.end_document();
  }

 private:
  // The line being read, from its column `col` on (a list item's mapping
  // starts past its "- "), without trailing spaces.
  struct Line {
    std::string_view rest;
    size_t col = 0;
    bool eof = false;
    bool marker = false;  // "---"
  };

  /// Moves to the next line with content, past blank and comment lines.
  void advance() {
    while (next_ < text_.size()) {
      const size_t nl = text_.find('\n', next_);
      const size_t end = nl == std::string_view::npos ? text_.size() : nl;
      std::string_view line = text_.substr(next_, end - next_);
      next_ = end + 1;
      while (!line.empty() && line.back() == ' ') line.remove_suffix(1);
      if (line.starts_with("---") || line.starts_with("...") || line.starts_with("%")) {
        if (line != "---") decline();
        line_ = Line{{}, 0, false, true};
        return;
      }
      const size_t at = line.find_first_not_of(' ');
      if (at == std::string_view::npos || line[at] == '#') continue;
      line_ = Line{line.substr(at), at, false, false};
      return;
    }
    line_ = Line{{}, 0, true, false};
  }

  bool here(size_t col) const { return !line_.eof && !line_.marker && line_.col == col; }
  bool deeper(size_t col) const { return !line_.eof && !line_.marker && line_.col > col; }

  void check_depth() const {
    if (out_.depth() >= limits_.max_depth) decline();
  }

  void check_size(std::string_view s) const {
    if (s.size() > limits_.max_scalar_bytes) decline();
  }

  /// The node starting on the current line, at column `col`.
  void block(size_t col) {
    if (is_item(line_.rest)) {
      list(col);
    } else {
      mapping(col);
    }
  }

  void list(size_t col) {
    check_depth();
    out_.open_list();
    while (here(col) && is_item(line_.rest)) {
      size_t k = 1;
      while (k < line_.rest.size() && line_.rest[k] == ' ') ++k;
      if (k == line_.rest.size()) {
        advance();
        // An item with nothing in it: libfyaml 0.7.12 refuses one that ends
        // a list written at its key's column, valid as it is; it decides.
        if (!deeper(col)) decline();
        block(line_.col);
        continue;
      }
      const std::string_view item = line_.rest.substr(k);
      if (is_item(item)) decline();  // "- - x"
      if (starts_entry(item)) {
        line_.rest = item;
        line_.col = col + k;
        mapping(col + k);
      } else {
        inline_value(item);
        advance();
      }
    }
    if (deeper(col)) decline();
    out_.close_node();
  }

  void mapping(size_t col) {
    check_depth();
    out_.open_mapping();
    while (here(col)) {
      if (is_item(line_.rest)) decline();  // an item where a key belongs
      const std::string_view rest = entry_key(line_.rest);
      if (rest.empty()) {
        advance();
        after_key(col);
      } else {
        inline_value(rest);
        advance();
      }
    }
    if (deeper(col)) decline();
    out_.close_node();
  }

  /// The value after a key with nothing after it on its line: a block on
  /// the lines below, deeper, or a list at the key's column; else null.
  void after_key(size_t col) {
    if (deeper(col)) {
      block(line_.col);
    } else if (here(col) && is_item(line_.rest)) {
      list(col);
    } else {
      out_.value({}, true);
    }
  }

  /// Whether `s` starts with "key:" followed by a space or its end.
  static bool starts_entry(std::string_view s) {
    size_t colon = std::string_view::npos;
    if (s[0] == '"' || s[0] == '\'') {
      colon = quoted_end(s);
      if (colon >= s.size() || s[colon] != ':') return false;
    } else {
      if (s[0] == '[' || s[0] == '{') return false;
      colon = s.find(':');
      if (colon == std::string_view::npos) return false;
    }
    return colon + 1 == s.size() || s[colon + 1] == ' ';
  }

  /// Where the quoted scalar `s` starts with ends (past its closing quote);
  /// npos when it does not end on its line.
  static size_t quoted_end(std::string_view s) {
    const char q = s[0];
    for (size_t i = 1; i < s.size(); ++i) {
      if (q == '"' && s[i] == '\\') {
        ++i;
      } else if (s[i] == q) {
        if (q == '\'' && i + 1 < s.size() && s[i + 1] == '\'') {
          ++i;
        } else {
          return i + 1;
        }
      }
    }
    return std::string_view::npos;
  }

  /// Hands the key of the entry `s` to the builder; returns what follows
  /// its ": " (empty when nothing, or only a comment, does).
  std::string_view entry_key(std::string_view s) {
    size_t end = 0;
    if (s[0] == '"' || s[0] == '\'') {
      end = s[0] == '"' ? double_quoted(s, 0) : single_quoted(s, 0);
      check_size(text_scratch_);
      out_.key(text_scratch_);
    } else {
      const size_t colon = s.find(':');
      if (colon == std::string_view::npos) decline();
      const std::string_view key = s.substr(0, colon);
      if (bad_start(key) || key.back() == ' ' || key == "<<" ||
          kNotInKey.find_in(key) != std::string_view::npos)
        decline();
      check_size(key);
      out_.key(key);
      end = colon;
    }
    if (end >= s.size() || s[end] != ':') decline();
    std::string_view rest = s.substr(end + 1);
    if (!rest.empty() && rest[0] != ' ') decline();
    const size_t at = rest.find_first_not_of(' ');
    if (at == std::string_view::npos || rest[at] == '#') return {};
    return rest.substr(at);
  }

  /// A value written on its line, after a key or "- ".
  void inline_value(std::string_view v) {
    size_t end = 0;
    if (v[0] == '"' || v[0] == '\'') {
      end = v[0] == '"' ? double_quoted(v, 0) : single_quoted(v, 0);
      check_size(text_scratch_);
      out_.value(text_scratch_, false);
    } else if (v[0] == '[' || v[0] == '{') {
      end = flow(v, 0);
    } else {
      if (bad_start(v)) decline();
      const size_t comment = v.find(" #");
      std::string_view s = v.substr(0, comment);
      while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
      if (s.find(": ") != std::string_view::npos || s.back() == ':') decline();
      check_size(s);
      out_.value(s, true);
      return;
    }
    rest_is_comment(v, end);
  }

  /// Only spaces, then nothing or a comment, after position `i` of `v`.
  static void rest_is_comment(std::string_view v, size_t i) {
    if (i == v.size()) return;
    if (v[i] != ' ') decline();
    const size_t at = v.find_first_not_of(' ', i);
    if (at != std::string_view::npos && v[at] != '#') decline();
  }

  /// A flow mapping or list starting at `v[i]`, on one line; returns the
  /// position past it.
  size_t flow(std::string_view v, size_t i) {
    const bool is_map = v[i] == '{';
    const char close = is_map ? '}' : ']';
    check_depth();
    if (is_map) {
      out_.open_mapping();
    } else {
      out_.open_list();
    }
    i = skip_spaces(v, i + 1);
    while (true) {
      if (i >= v.size()) decline();  // continued on the next line
      if (v[i] == close) break;
      if (is_map) {
        i = flow_scalar(v, i, true);
        if (i >= v.size() || v[i] != ':') decline();
        if (i + 1 >= v.size() || v[i + 1] != ' ') decline();
        i = skip_spaces(v, i + 1);
        if (i >= v.size() || v[i] == ',' || v[i] == close) decline();
      }
      i = flow_node(v, i);
      i = skip_spaces(v, i);
      if (i >= v.size()) decline();
      if (v[i] == ',') {
        i = skip_spaces(v, i + 1);
        if (i < v.size() && v[i] == close) decline();  // a trailing comma
      } else if (v[i] != close) {
        decline();
      }
    }
    out_.close_node();
    return i + 1;
  }

  size_t flow_node(std::string_view v, size_t i) {
    if (v[i] == '[' || v[i] == '{') return flow(v, i);
    return flow_scalar(v, i, false);
  }

  /// A scalar inside a flow collection: a key when `key`.
  size_t flow_scalar(std::string_view v, size_t i, bool key) {
    if (v[i] == '"' || v[i] == '\'') {
      const size_t end = v[i] == '"' ? double_quoted(v, i) : single_quoted(v, i);
      check_size(text_scratch_);
      if (key) {
        out_.key(text_scratch_);
      } else {
        out_.value(text_scratch_, false);
      }
      return end;
    }
    const size_t end = kFlowScalarStops.find_in(v, i);
    if (end == std::string_view::npos) decline();
    if (key ? v[end] != ':' : v[end] == ':' || v[end] == '#') decline();
    std::string_view s = v.substr(i, end - i);
    while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
    if (bad_start(s) || s == "<<") decline();
    check_size(s);
    if (key) {
      out_.key(s);
    } else {
      out_.value(s, true);
    }
    return key ? end : i + s.size();
  }

  static size_t skip_spaces(std::string_view v, size_t i) {
    while (i < v.size() && v[i] == ' ') ++i;
    return i;
  }

  /// A single-quoted scalar starting at `v[i]`, on one line, into
  /// text_scratch_; returns the position past its closing quote.
  size_t single_quoted(std::string_view v, size_t i) {
    text_scratch_.clear();
    ++i;
    while (true) {
      const size_t q = v.find('\'', i);
      if (q == std::string_view::npos) decline();
      text_scratch_.append(v.substr(i, q - i));
      if (q + 1 < v.size() && v[q + 1] == '\'') {
        text_scratch_ += '\'';
        i = q + 2;
        continue;
      }
      return q + 1;
    }
  }

  /// A double-quoted scalar starting at `v[i]`, on one line, into
  /// text_scratch_ (JSON's escapes only); returns the position past its
  /// closing quote.
  size_t double_quoted(std::string_view v, size_t i) {
    text_scratch_.clear();
    ++i;
    while (true) {
      const size_t stop = kQuoteOrEscape.find_in(v, i);
      if (stop == std::string_view::npos) decline();
      text_scratch_.append(v.substr(i, stop - i));
      if (v[stop] == '"') return stop + 1;
      if (stop + 1 >= v.size()) decline();
      const char e = v[stop + 1];
      i = stop + 2;
      switch (e) {
        case '"':
        case '\\':
        case '/':
          text_scratch_ += e;
          break;
        case 'n':
          text_scratch_ += '\n';
          break;
        case 't':
          text_scratch_ += '\t';
          break;
        case 'r':
          text_scratch_ += '\r';
          break;
        case 'b':
          text_scratch_ += '\b';
          break;
        case 'f':
          text_scratch_ += '\f';
          break;
        case 'u': {
          if (i + 4 > v.size()) decline();
          uint32_t cp = 0;
          for (size_t k = 0; k < 4; ++k) {
            const char h = v[i + k];
            cp <<= 4;
            if (h >= '0' && h <= '9') {
              cp |= static_cast<uint32_t>(h - '0');
            } else if (h >= 'a' && h <= 'f') {
              cp |= static_cast<uint32_t>(h - 'a' + 10);
            } else if (h >= 'A' && h <= 'F') {
              cp |= static_cast<uint32_t>(h - 'A' + 10);
            } else {
              decline();
            }
          }
          if (cp == 0 || (cp >= 0xD800 && cp <= 0xDFFF)) decline();
          utf8_append(text_scratch_, cp);
          i += 4;
          break;
        }
        default:
          decline();
      }
    }
  }

  std::string_view text_;
  const Limits& limits_;
  int first_doc_;
  TreeBuilder& out_;
  size_t next_ = 0;
  Line line_;
  std::string text_scratch_;
};

}  // namespace

bool read_block_yaml(std::string_view text, const Limits& limits, int first_doc, TreeBuilder& out) {
  if (has_odd_bytes(text)) return false;
  try {
    BlockReader(text, limits, first_doc, out).run();
    return true;
  } catch (const Declined&) {
    return false;
  } catch (const InputError&) {
    // A key twice: libfyaml reports it, or a syntax error it meets first
    // while looking ahead for where the value ends.
    return false;
  }
}

}  // namespace scoria::input
