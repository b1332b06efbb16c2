#include "input/yaml_events.h"

#include <charconv>

#include "input/syntax_error.h"
#include "model/error.h"

namespace scoria::input {

Mark mark_of(fy_token* token) {
  const fy_mark* m = token != nullptr ? fy_token_start_mark(token) : nullptr;
  if (m == nullptr) return {};
  return {m->line + 1, m->column + 1, m->input_pos};
}

std::string where(std::string_view origin, int document, Mark at, int first_line) {
  std::string out = std::string(origin) + ": document " + std::to_string(document) + ": ";
  if (at.line > 0)
    out += "line " + std::to_string(first_line + at.line) + ", column " +
           std::to_string(at.column) + ": ";
  return out;
}

std::optional<std::string> scalar_refusal(size_t bytes, const Limits& limits) {
  if (bytes <= limits.max_scalar_bytes) return std::nullopt;
  return "a value of " + std::to_string(bytes) + " bytes is longer than the limit of " +
         std::to_string(limits.max_scalar_bytes) + "; shorten it";
}

std::optional<std::string> AliasBudget::charge(size_t nodes) {
  if (++aliases_ > limits_.max_aliases) {
    return "more than " + std::to_string(limits_.max_aliases) +
           " aliases; write the values out (excessive aliasing is refused)";
  }
  nodes_ += nodes;
  if (nodes_ > limits_.max_alias_nodes) {
    return "aliases expand to more than " + std::to_string(limits_.max_alias_nodes) +
           " nodes; write the values out (excessive aliasing is refused)";
  }
  return std::nullopt;
}

std::string_view text_of(fy_token* token) {
  if (token == nullptr) return {};
  size_t len = 0;
  const char* s = fy_token_get_text(token, &len);
  return s == nullptr ? std::string_view() : std::string_view(s, len);
}

namespace {

bool blank(char c) { return c == ' ' || c == '\t'; }

/// The value of a single-quoted scalar from what is between its quotes
/// (YAML 1.2, 7.3.2): '' is a quote; a line break with the blanks around
/// it folds to a space, or to one newline per empty line that follows it.
void unquote_single(std::string_view raw, std::string& out) {
  out.clear();
  size_t i = 0;
  while (i < raw.size()) {
    const char c = raw[i];
    if (c == '\'') {
      out += '\'';
      i += 2;  // the parser accepted it: a quote inside is always doubled
    } else if (blank(c) || c == '\r' || c == '\n') {
      size_t j = i;
      while (j < raw.size() && blank(raw[j])) ++j;
      if (j == raw.size() || (raw[j] != '\r' && raw[j] != '\n')) {
        out.append(raw.substr(i, j - i));  // blanks inside a line are kept
        i = j;
        continue;
      }
      // A break: trailing blanks go, and so do the next lines' leading
      // ones; empty lines become newlines.
      size_t breaks = 0;
      while (j < raw.size() && (raw[j] == '\r' || raw[j] == '\n')) {
        j += raw[j] == '\r' && j + 1 < raw.size() && raw[j + 1] == '\n' ? 2 : 1;
        ++breaks;
        while (j < raw.size() && blank(raw[j])) ++j;
      }
      if (breaks == 1) {
        out += ' ';
      } else {
        out.append(breaks - 1, '\n');
      }
      i = j;
    } else {
      out += c;
      ++i;
    }
  }
}

}  // namespace

std::string_view scalar_text(fy_token* token, std::string_view source, std::string& scratch) {
  if (token != nullptr && fy_token_scalar_style(token) == FYSS_SINGLE_QUOTED) {
    const fy_mark* start = fy_token_start_mark(token);
    const fy_mark* end = fy_token_end_mark(token);
    // The marks hold what is between the quotes.
    if (start != nullptr && end != nullptr && start->input_pos > 0 &&
        start->input_pos <= end->input_pos && end->input_pos < source.size() &&
        source[start->input_pos - 1] == '\'' && source[end->input_pos] == '\'') {
      const std::string_view raw =
          source.substr(start->input_pos, end->input_pos - start->input_pos);
      if (raw.find("''") != std::string_view::npos) {
        unquote_single(raw, scratch);
        return scratch;
      }
    }
  }
  return text_of(token);
}

// This libfyaml has no structured error list: the first error is cut out of
// its formatted output, "<origin>:LINE:COLUMN: error: message".
void YamlEvents::FirstError::capture(fy_diag*, void* user, const char* buf, size_t len) {
  auto* self = static_cast<FirstError*>(user);
  if (self->seen) return;
  const std::string_view text(buf, len);
  const size_t tag = text.find(": error: ");
  if (tag == std::string_view::npos) return;
  self->seen = true;
  std::string_view msg = text.substr(tag + 9);
  while (!msg.empty() && (msg.back() == '\n' || msg.back() == '\r')) msg.remove_suffix(1);
  self->message = std::string(msg);
  const std::string_view where = text.substr(0, tag);
  const size_t c = where.rfind(':');
  const size_t l =
      c == std::string_view::npos || c == 0 ? std::string_view::npos : where.rfind(':', c - 1);
  if (l == std::string_view::npos) return;
  std::from_chars(where.data() + l + 1, where.data() + c, self->line);
  std::from_chars(where.data() + c + 1, where.data() + where.size(), self->column);
}

YamlEvents::YamlEvents(std::string_view text, std::string_view origin) {
  fy_diag_cfg dcfg;
  fy_diag_cfg_default(&dcfg);
  dcfg.fp = nullptr;
  dcfg.output_fn = &FirstError::capture;
  dcfg.user = &error_;
  dcfg.colorize = false;
  dcfg.show_source = false;
  diag_.reset(fy_diag_create(&dcfg));
  // Errors about a token are collected, not printed: printing shows the
  // source line, and libfyaml 0.7.12 underflows a stack buffer doing so
  // for a long line when there is no terminal (found by the API fuzzer).
  if (diag_) fy_diag_set_collect_errors(diag_.get(), true);
  fy_parse_cfg cfg{};
  cfg.flags =
      static_cast<fy_parse_cfg_flags>(FYPCF_QUIET | FYPCF_DEFAULT_VERSION_1_2 | FYPCF_JSON_NONE);
  cfg.diag = diag_.get();
  parser_.reset(fy_parser_create(&cfg));
  if (!diag_ || !parser_ || fy_parser_set_string(parser_.get(), text.data(), text.size()) != 0)
    throw InputError(std::string(origin) + ": the YAML parser could not start; out of memory?");
}

YamlEvents::~YamlEvents() = default;

YamlEvents::Event YamlEvents::next() {
  // Owned by the parser until freed; the Event frees it.
  return Event(fy_parser_parse(parser_.get()), EventDeleter{parser_.get()});
}

bool YamlEvents::failed() const { return fy_parser_get_stream_error(parser_.get()); }

YamlEvents::FirstError YamlEvents::first_error() const {
  void* iter = nullptr;
  while (const fy_diag_error* e = fy_diag_errors_iterate(diag_.get(), &iter)) {
    if (e->type != FYET_ERROR) continue;
    FirstError first;
    first.seen = true;
    first.line = e->line;
    first.column = e->column;
    first.message = e->msg != nullptr ? e->msg : "";
    while (!first.message.empty() && (first.message.back() == '\n' || first.message.back() == '\r'))
      first.message.pop_back();
    return first;
  }
  return error_;
}

std::string YamlEvents::error_detail() const {
  const FirstError first = first_error();
  return first.message.empty() ? std::string("cannot be parsed") : first.message;
}

void YamlEvents::throw_syntax_error(std::string_view origin, int document, int first_line) const {
  const FirstError first = first_error();
  const Mark at{first.line, first.column, 0};
  const std::string detail =
      first.message.empty() ? std::string("cannot be parsed") : first.message;
  throw SyntaxError(where(origin, document, at, first_line) + "invalid YAML (" + detail +
                        "); check the indentation, the quoting and the ':' after each key there",
                    at.line > 0 ? first_line + at.line : 0, first.column, detail);
}

}  // namespace scoria::input
