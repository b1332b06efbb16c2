// libfyaml's event parser, wrapped: the one place Scoria starts a YAML
// parser. Readers build their own trees from the events (documents.cpp:
// JSON values; yaml_tree.cpp: nodes that keep their places).
#pragma once

#include <libfyaml.h>

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "input/limits.h"

namespace scoria::input {

/// Where a token starts: 1-based line and column, 0-based byte offset; all
/// 0 when there is no token (an empty value has none).
struct Mark {
  int line = 0;
  int column = 0;
  size_t offset = 0;
};

Mark mark_of(fy_token* token);

/// "ORIGIN: document N: line L, column C: ", the prefix of every message
/// about a place in a YAML text (without the line when `at` has none);
/// `first_line` is the 0-based line the parsed text starts on.
std::string where(std::string_view origin, int document, Mark at, int first_line = 0);

/// A token's text as written (a scalar's value after YAML's escapes and
/// folding; an anchor's or tag's name); empty for no token.
std::string_view text_of(fy_token* token);

/// A scalar token's value, as text_of gives it, except that a single-quoted
/// scalar with '' escapes is unescaped and folded here, from `source` (the
/// text being parsed), into `scratch`: libfyaml 0.7.12 leaks the buffer it
/// formats runs of them into (512 bytes for six, growing with the run;
/// found by fuzz/config_fuzz.cpp). The view lives as long as the token and
/// `scratch` unchanged.
std::string_view scalar_text(fy_token* token, std::string_view source, std::string& scratch);

/// The refusal of a scalar (or tag) of `bytes` bytes past
/// limits.max_scalar_bytes; nullopt when it fits.
std::optional<std::string> scalar_refusal(size_t bytes, const Limits& limits);

/// Alias uses of one text counted against its Limits: each alias, and the
/// nodes its copy adds.
class AliasBudget {
 public:
  explicit AliasBudget(const Limits& limits) : limits_(limits) {}
  /// Charges one alias whose copy holds `nodes` nodes; the refusal when
  /// that passes a limit.
  std::optional<std::string> charge(size_t nodes);

 private:
  const Limits& limits_;
  size_t aliases_ = 0;
  size_t nodes_ = 0;
};

/// The events of one text, in order. The text must outlive this.
class YamlEvents {
 public:
  struct EventDeleter {
    fy_parser* parser;
    void operator()(fy_event* e) const { fy_parser_event_free(parser, e); }
  };
  using Event = std::unique_ptr<fy_event, EventDeleter>;

  /// Throws InputError naming `origin` when the parser cannot start.
  YamlEvents(std::string_view text, std::string_view origin);
  YamlEvents(const YamlEvents&) = delete;
  YamlEvents& operator=(const YamlEvents&) = delete;
  ~YamlEvents();

  /// The next event; null at the end of the stream, or at the first error.
  Event next();

  /// After next() returned null: whether the text is invalid YAML, and the
  /// parser's first complaint (line and column 1-based, 0 when unknown).
  bool failed() const;
  int error_line() const { return first_error().line; }
  int error_column() const { return first_error().column; }
  /// The complaint in libfyaml's words, or a general one when it said none.
  std::string error_detail() const;

  /// Throws the SyntaxError for a failed parse, worded with where().
  [[noreturn]] void throw_syntax_error(std::string_view origin, int document,
                                       int first_line = 0) const;

 private:
  struct FirstError {
    bool seen = false;
    int line = 0, column = 0;
    std::string message;
    static void capture(fy_diag*, void* user, const char* buf, size_t len);
  };
  struct DiagDeleter {
    void operator()(fy_diag* d) const { fy_diag_destroy(d); }
  };
  struct ParserDeleter {
    void operator()(fy_parser* p) const { fy_parser_destroy(p); }
  };

  /// The first error collected (with its place), else the first printed.
  FirstError first_error() const;

  FirstError error_;  // its address is the diagnostics' user pointer: not movable
  std::unique_ptr<fy_diag, DiagDeleter> diag_;
  std::unique_ptr<fy_parser, ParserDeleter> parser_;
};

}  // namespace scoria::input
