#include "cel/parser.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdlib>
#include <limits>

namespace scoria::cel {

namespace {

struct Failure {
  ParseError error;
};

constexpr std::array<std::string_view, 15> kReserved = {
    "as",     "break", "const", "continue", "else",      "for",    "function", "if",
    "import", "let",   "loop",  "package",  "namespace", "return", "var"};

bool ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool ident_char(char c) { return ident_start(c) || (c >= '0' && c <= '9'); }
bool digit(char c) { return c >= '0' && c <= '9'; }
bool hex_digit(char c) { return digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
int hex_value(char c) { return digit(c) ? c - '0' : (c | 0x20) - 'a' + 10; }

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  Ast run() {
    ast_.root = expr();
    skip_space();
    if (pos_ < text_.size()) fail("unexpected " + quote_here());
    return std::move(ast_);
  }

 private:
  // --- nodes ----------------------------------------------------------------

  uint32_t add(Expr::Kind kind, size_t at, std::vector<uint32_t> args = {}) {
    int depth = 1;
    for (const uint32_t a : args) depth = std::max(depth, depth_of_[a] + 1);
    if (depth > kMaxDepth)
      fail("the expression is more than " + std::to_string(kMaxDepth) + " operations deep", at);
    depth_of_.push_back(depth);
    Expr e;
    e.kind = kind;
    e.at = static_cast<uint32_t>(at);
    e.args = std::move(args);
    ast_.nodes.push_back(std::move(e));
    return static_cast<uint32_t>(ast_.nodes.size() - 1);
  }
  uint32_t add_named(Expr::Kind kind, size_t at, std::string name, std::vector<uint32_t> args) {
    const uint32_t n = add(kind, at, std::move(args));
    ast_.nodes[n].name = std::move(name);
    return n;
  }

  // --- errors ---------------------------------------------------------------

  [[noreturn]] void fail(const std::string& message, size_t at = std::string_view::npos) const {
    const size_t where = at == std::string_view::npos ? pos_ : at;
    throw Failure{{"at " + std::to_string(where) + ": " + message, where}};
  }
  std::string quote_here() const {
    if (pos_ >= text_.size()) return "end of expression";
    return "'" + std::string(text_.substr(pos_, 1)) + "'";
  }

  // --- tokens ---------------------------------------------------------------

  void skip_space() {
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f') {
        ++pos_;
      } else if (c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '/') {
        while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
      } else {
        break;
      }
    }
  }
  bool peek(std::string_view token) {
    skip_space();
    if (text_.substr(pos_, token.size()) != token) return false;
    // "in" and the like only as whole words.
    if (ident_start(token[0]) && pos_ + token.size() < text_.size() &&
        ident_char(text_[pos_ + token.size()]))
      return false;
    return true;
  }
  bool accept(std::string_view token) {
    if (!peek(token)) return false;
    pos_ += token.size();
    return true;
  }
  void expect(std::string_view token) {
    if (!accept(token)) fail("expected '" + std::string(token) + "', found " + quote_here());
  }
  std::string identifier() {
    skip_space();
    if (pos_ >= text_.size() || !ident_start(text_[pos_]))
      fail("expected a name, found " + quote_here());
    const size_t start = pos_;
    while (pos_ < text_.size() && ident_char(text_[pos_])) ++pos_;
    std::string name(text_.substr(start, pos_ - start));
    for (std::string_view r : kReserved)
      if (name == r) fail("'" + name + "' is a reserved word", start);
    return name;
  }

  struct Depth {
    explicit Depth(Parser& p) : p_(p) {
      if (++p_.depth_ > kMaxNesting)
        p_.fail("nested more than " + std::to_string(kMaxNesting) + " deep");
    }
    ~Depth() { --p_.depth_; }
    Parser& p_;
  };

  // --- grammar --------------------------------------------------------------

  uint32_t expr() {
    const Depth d(*this);
    const size_t at = pos_;
    const uint32_t cond = logical_or();
    if (!accept("?")) return cond;
    const uint32_t yes = logical_or();
    expect(":");
    const uint32_t no = expr();
    return add(Expr::Kind::Ternary, at, {cond, yes, no});
  }
  uint32_t logical_or() {
    uint32_t left = logical_and();
    while (true) {
      skip_space();
      const size_t at = pos_;
      if (!accept("||")) return left;
      left = add(Expr::Kind::Or, at, {left, logical_and()});
    }
  }
  uint32_t logical_and() {
    uint32_t left = relation();
    while (true) {
      skip_space();
      const size_t at = pos_;
      if (!accept("&&")) return left;
      left = add(Expr::Kind::And, at, {left, relation()});
    }
  }
  uint32_t relation() {
    uint32_t left = addition();
    while (true) {
      skip_space();
      const size_t at = pos_;
      std::string op;
      for (std::string_view o : {"==", "!=", "<=", ">=", "<", ">", "in"})
        if (accept(o)) {
          op = o;
          break;
        }
      if (op.empty()) return left;
      left = add_named(Expr::Kind::Binary, at, op, {left, addition()});
    }
  }
  uint32_t addition() {
    uint32_t left = multiplication();
    while (true) {
      skip_space();
      const size_t at = pos_;
      if (accept("+"))
        left = add_named(Expr::Kind::Binary, at, "+", {left, multiplication()});
      else if (accept("-"))
        left = add_named(Expr::Kind::Binary, at, "-", {left, multiplication()});
      else
        return left;
    }
  }
  uint32_t multiplication() {
    uint32_t left = unary();
    while (true) {
      skip_space();
      const size_t at = pos_;
      std::string op;
      for (std::string_view o : {"*", "/", "%"})
        if (accept(o)) {
          op = o;
          break;
        }
      if (op.empty()) return left;
      left = add_named(Expr::Kind::Binary, at, op, {left, unary()});
    }
  }
  uint32_t unary() {
    skip_space();
    const size_t at = pos_;
    if (accept("!")) {
      const Depth d(*this);
      return add(Expr::Kind::Not, at, {unary()});
    }
    if (peek("-")) {
      ++pos_;
      skip_space();
      // A number right after the minus is a negative literal (so that
      // -9223372036854775808 is an int, not the negation of one).
      if (pos_ < text_.size() && digit(text_[pos_])) return member(primary(/*negative=*/true));
      const Depth d(*this);
      return add(Expr::Kind::Negate, at, {unary()});
    }
    return member(primary(false));
  }
  uint32_t member(uint32_t target) {
    while (true) {
      skip_space();
      const size_t at = pos_;
      if (accept(".")) {
        const std::string field = identifier();
        if (accept("(")) {
          std::vector<uint32_t> args = {target};
          const size_t macro_at = at;
          if (const uint32_t m = macro(field, target, macro_at); m != UINT32_MAX) {
            target = m;
            continue;
          }
          arguments(args, ")");
          target = add_named(Expr::Kind::Call, at, field, std::move(args));
          ast_.nodes[target].member = true;
        } else {
          target = add_named(Expr::Kind::Select, at, field, {target});
        }
      } else if (accept("[")) {
        const uint32_t index = expr();
        expect("]");
        target = add(Expr::Kind::Index, at, {target, index});
      } else {
        return target;
      }
    }
  }
  // all, exists, exists_one, map, filter: `(` is taken; UINT32_MAX if
  // `name` is none of them.
  uint32_t macro(const std::string& name, uint32_t range, size_t at) {
    if (name != "all" && name != "exists" && name != "exists_one" && name != "map" &&
        name != "filter")
      return UINT32_MAX;
    const std::string var = identifier();
    expect(",");
    std::vector<uint32_t> args = {range, expr()};
    if (name == "map" && accept(",")) args.push_back(expr());
    expect(")");
    const uint32_t n = add_named(Expr::Kind::Comprehension, at, name, std::move(args));
    ast_.nodes[n].var = var;
    return n;
  }
  void arguments(std::vector<uint32_t>& args, std::string_view close) {
    if (accept(close)) return;
    do {
      args.push_back(expr());
    } while (accept(","));
    expect(close);
  }
  uint32_t primary(bool negative) {
    skip_space();
    const size_t at = pos_;
    if (pos_ >= text_.size()) fail("expected an expression, found end of expression");
    const char c = text_[pos_];
    if (digit(c) || (c == '.' && pos_ + 1 < text_.size() && digit(text_[pos_ + 1])))
      return number(at, negative);
    if (accept("(")) {
      const uint32_t inner = expr();
      expect(")");
      return inner;
    }
    if (accept("[")) {
      std::vector<uint32_t> items;
      if (!accept("]")) {
        do {
          if (peek("]")) break;  // a trailing comma
          items.push_back(expr());
        } while (accept(","));
        expect("]");
      }
      return add(Expr::Kind::ListOf, at, std::move(items));
    }
    if (accept("{")) {
      std::vector<uint32_t> entries;
      if (!accept("}")) {
        do {
          if (peek("}")) break;
          entries.push_back(expr());
          expect(":");
          entries.push_back(expr());
        } while (accept(","));
        expect("}");
      }
      return add(Expr::Kind::MapOf, at, std::move(entries));
    }
    if (c == '"' || c == '\'') return string_literal(at, false, false);
    if ((c == 'r' || c == 'R' || c == 'b' || c == 'B') && pos_ + 1 < text_.size()) {
      const char n = text_[pos_ + 1];
      const bool raw = c == 'r' || c == 'R' || n == 'r' || n == 'R';
      const bool bytes = c == 'b' || c == 'B' || n == 'b' || n == 'B';
      if (n == '"' || n == '\'') {
        ++pos_;
        return string_literal(at, raw, bytes);
      }
      if ((n == 'r' || n == 'R' || n == 'b' || n == 'B') && n != c && pos_ + 2 < text_.size() &&
          (text_[pos_ + 2] == '"' || text_[pos_ + 2] == '\'')) {
        pos_ += 2;
        return string_literal(at, raw, bytes);
      }
    }
    accept(".");  // a leading dot: the root scope, the same names here
    const std::string name = identifier();
    if (name == "true" || name == "false") return literal(at, Value(name == "true"));
    if (name == "null") return literal(at, Value(Null{}));
    if (accept("(")) {
      if (name == "has") {
        const uint32_t arg = expr();
        expect(")");
        if (ast_.nodes[arg].kind != Expr::Kind::Select)
          fail("has() takes a field selection, such as has(device.attributes)", at);
        return add_named(Expr::Kind::Has, at, ast_.nodes[arg].name, {ast_.nodes[arg].args[0]});
      }
      std::vector<uint32_t> args;
      arguments(args, ")");
      return add_named(Expr::Kind::Call, at, name, std::move(args));
    }
    return add_named(Expr::Kind::Ident, at, name, {});
  }
  uint32_t literal(size_t at, Value v) {
    const uint32_t n = add(Expr::Kind::Literal, at);
    ast_.nodes[n].literal = std::move(v);
    return n;
  }
  uint32_t number(size_t at, bool negative) {
    const size_t start = pos_;
    if (text_.substr(pos_, 2) == "0x" || text_.substr(pos_, 2) == "0X") {
      pos_ += 2;
      const size_t digits = pos_;
      while (pos_ < text_.size() && hex_digit(text_[pos_])) ++pos_;
      if (pos_ == digits) fail("a hex literal needs digits", start);
      return integer(at, std::string(text_.substr(digits, pos_ - digits)), 16, negative);
    }
    bool is_double = false;
    while (pos_ < text_.size() && digit(text_[pos_])) ++pos_;
    if (pos_ < text_.size() && text_[pos_] == '.' && pos_ + 1 < text_.size() &&
        digit(text_[pos_ + 1])) {
      is_double = true;
      ++pos_;
      while (pos_ < text_.size() && digit(text_[pos_])) ++pos_;
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      size_t p = pos_ + 1;
      if (p < text_.size() && (text_[p] == '+' || text_[p] == '-')) ++p;
      if (p < text_.size() && digit(text_[p])) {
        is_double = true;
        pos_ = p;
        while (pos_ < text_.size() && digit(text_[pos_])) ++pos_;
      }
    }
    const std::string digits(text_.substr(start, pos_ - start));
    if (is_double) {
      const double d = std::strtod(digits.c_str(), nullptr);
      return literal(at, Value(negative ? -d : d));
    }
    return integer(at, digits, 10, negative);
  }
  uint32_t integer(size_t at, const std::string& digits, int base, bool negative) {
    const bool unsigned_ = pos_ < text_.size() && (text_[pos_] == 'u' || text_[pos_] == 'U');
    if (unsigned_) ++pos_;
    if (pos_ < text_.size() && ident_char(text_[pos_])) fail("unexpected " + quote_here());
    errno = 0;
    const unsigned long long u = std::strtoull(digits.c_str(), nullptr, base);
    if (errno == ERANGE) fail("the number does not fit in 64 bits", at);
    if (unsigned_) {
      if (negative) fail("an unsigned literal cannot be negative", at);
      return literal(at, Value(static_cast<uint64_t>(u)));
    }
    constexpr unsigned long long kMax = std::numeric_limits<int64_t>::max();
    if (u > kMax + (negative ? 1ull : 0ull)) fail("the number does not fit in an int", at);
    const int64_t i = negative ? static_cast<int64_t>(0 - u) : static_cast<int64_t>(u);
    return literal(at, Value(i));
  }
  uint32_t string_literal(size_t at, bool raw, bool bytes) {
    const char quote = text_[pos_];
    const bool triple = text_.substr(pos_, 3) == std::string(3, quote);
    pos_ += triple ? 3 : 1;
    std::string out;
    while (true) {
      if (pos_ >= text_.size()) fail("the string is not closed", at);
      const char c = text_[pos_];
      if (triple ? text_.substr(pos_, 3) == std::string(3, quote) : c == quote) {
        pos_ += triple ? 3 : 1;
        break;
      }
      if (!triple && (c == '\n' || c == '\r')) fail("a line break in a one-line string", pos_);
      if (c == '\\' && !raw) {
        escape(out, bytes);
        continue;
      }
      out += c;
      ++pos_;
    }
    return literal(at, bytes ? Value(Bytes{std::move(out)}) : Value(std::move(out)));
  }
  void escape(std::string& out, bool bytes) {
    const size_t at = pos_;
    if (++pos_ >= text_.size()) fail("a backslash ends the string", at);
    const char c = text_[pos_++];
    const auto hex = [&](int n) {
      uint32_t v = 0;
      for (int i = 0; i < n; ++i) {
        if (pos_ >= text_.size() || !hex_digit(text_[pos_])) fail("a bad escape sequence", at);
        v = v * 16 + static_cast<uint32_t>(hex_value(text_[pos_++]));
      }
      return v;
    };
    switch (c) {
      case 'a':
        out += '\a';
        return;
      case 'b':
        out += '\b';
        return;
      case 'f':
        out += '\f';
        return;
      case 'n':
        out += '\n';
        return;
      case 'r':
        out += '\r';
        return;
      case 't':
        out += '\t';
        return;
      case 'v':
        out += '\v';
        return;
      case '\\':
      case '\'':
      case '"':
      case '`':
      case '?':
        out += c;
        return;
      case 'x':
      case 'X': {
        const uint32_t v = hex(2);
        if (bytes)
          out += static_cast<char>(v);
        else
          append_utf8(out, v);
        return;
      }
      case 'u':
      case 'U': {
        if (bytes) fail("\\u escapes are not allowed in bytes", at);
        const uint32_t v = hex(c == 'u' ? 4 : 8);
        if (v > 0x10FFFF || (v >= 0xD800 && v < 0xE000)) fail("not a Unicode code point", at);
        append_utf8(out, v);
        return;
      }
      default:
        if (c >= '0' && c <= '3') {
          uint32_t v = static_cast<uint32_t>(c - '0');
          for (int i = 0; i < 2; ++i) {
            if (pos_ >= text_.size() || text_[pos_] < '0' || text_[pos_] > '7')
              fail("a bad octal escape", at);
            v = v * 8 + static_cast<uint32_t>(text_[pos_++] - '0');
          }
          if (bytes)
            out += static_cast<char>(v);
          else
            append_utf8(out, v);
          return;
        }
        fail("a bad escape sequence", at);
    }
  }

  std::string_view text_;
  size_t pos_ = 0;
  int depth_ = 0;
  Ast ast_;
  std::vector<int> depth_of_;  // by node: the depth of its subtree
};

}  // namespace

std::variant<Ast, ParseError> parse(std::string_view text) {
  if (text.size() > kMaxExpressionBytes)
    return ParseError{"the expression is " + std::to_string(text.size()) + " bytes; at most " +
                          std::to_string(kMaxExpressionBytes) + " are allowed",
                      0};
  try {
    return Parser(text).run();
  } catch (const Failure& f) {
    return f.error;
  }
}

}  // namespace scoria::cel
