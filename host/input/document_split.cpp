#include "input/document_split.h"

#include <algorithm>
#include <exception>
#include <system_error>
#include <thread>

namespace scoria::input {

namespace {

bool is_marker(std::string_view line, char c) {
  // Byte by byte: this runs on every line of the text.
  return line.size() >= 3 && line[0] == c && line[1] == c && line[2] == c &&
         (line.size() == 3 || line[3] == ' ' || line[3] == '\t' || line[3] == '\r' ||
          line[3] == '\n');
}

bool has_content(std::string_view line) {
  const size_t first = line.find_first_not_of(" \t\r\n");
  return first != std::string_view::npos && line[first] != '#';
}

/// A "---" or "..." line.
struct Marker {
  size_t begin = 0;             // of the line
  size_t end = 0;               // past its line feed
  int line = 0;                 // 0-based, within its part
  bool opens = false;           // "---": opens a document
  bool content_before = false;  // a line of content since the part's previous marker
};

/// What one part of the text (whole lines) holds.
struct PartScan {
  ByteFaults faults;
  std::vector<Marker> markers;
  bool directive = false;
  bool content_after = false;  // a line of content after the part's last marker
  int lines = 0;
};

PartScan scan_part(std::string_view text, size_t begin, size_t end, size_t skip) {
  PartScan out;
  out.faults = find_byte_faults(text.substr(begin, end - begin));
  if (out.faults.bad_utf8) *out.faults.bad_utf8 += begin;
  if (out.faults.nul) *out.faults.nul += begin;
  bool content = false;
  size_t pos = std::max(begin, skip);
  while (pos < end) {
    const size_t eol = text.find('\n', pos);
    const size_t next = eol == std::string_view::npos ? text.size() : eol + 1;
    const std::string_view line = text.substr(pos, next - pos);
    if (!line.empty() && line[0] == '%') {
      out.directive = true;
      return out;
    }
    const bool dashes = is_marker(line, '-');
    if (dashes || is_marker(line, '.')) {
      out.markers.push_back({pos, next, out.lines, dashes, content});
      content = false;
    } else if (!content) {
      content = has_content(line);
    }
    pos = next;
    ++out.lines;
  }
  out.content_after = content;
  return out;
}

/// Cuts `text` into `parts` runs of whole lines, and scans each on a core.
std::vector<PartScan> scan_parts(std::string_view text, size_t skip, size_t parts) {
  std::vector<size_t> cuts{0};
  for (size_t k = 1; k < parts; ++k) {
    const size_t at = std::max(cuts.back(), text.size() * k / parts);
    const size_t eol = text.find('\n', at);
    cuts.push_back(eol == std::string_view::npos ? text.size() : eol + 1);
  }
  cuts.push_back(text.size());
  std::vector<PartScan> scans(parts);
  std::vector<std::exception_ptr> errors(parts);
  {
    std::vector<std::jthread> helpers;
    auto scan = [&](size_t k) {
      try {
        scans[k] = scan_part(text, cuts[k], cuts[k + 1], skip);
      } catch (...) {
        errors[k] = std::current_exception();
      }
    };
    size_t k = 1;
    try {
      for (; k < parts; ++k) helpers.emplace_back(scan, k);
    } catch (const std::system_error&) {
      // No more threads to be had: this one scans the rest.
      for (; k < parts; ++k) scan(k);
    }
    scan(0);
  }
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
  return scans;
}

}  // namespace

std::vector<Chunk> split_documents(std::string_view text, std::string_view origin, size_t skip) {
  // A part per core, of a few megabytes at least: a thread costs more than
  // scanning a small text.
  constexpr size_t kPartBytes = size_t{4} << 20;
  const size_t cores = std::max(1U, std::thread::hardware_concurrency());
  const std::vector<PartScan> scans =
      scan_parts(text, skip, std::clamp<size_t>(text.size() / kPartBytes, 1, cores));

  // The first fault in the text, ill-formed UTF-8 before a NUL.
  ByteFaults first;
  for (const PartScan& s : scans) {
    if (!first.bad_utf8) first.bad_utf8 = s.faults.bad_utf8;
    if (!first.nul) first.nul = s.faults.nul;
  }
  refuse_byte_faults(text, origin, first);
  const std::string_view body = text.substr(skip);
  for (const PartScan& s : scans)
    if (s.directive) return {{body, 1, 0, -1}};

  // Runs of consecutive documents are joined into chunks of about
  // kChunkBytes, so a parser is started per chunk rather than per document:
  // starting one (its diagnostics, its document state and default tags)
  // costs as much as parsing a small object.
  constexpr size_t kChunkBytes = 64 * 1024;
  std::vector<Chunk> chunks;
  int documents = 0;
  size_t start = skip;
  int start_line = 0;
  bool explicit_doc = false;
  bool content = false;
  auto close = [&](size_t end) {
    if (!explicit_doc && !content) return;
    ++documents;
    if (!chunks.empty() && chunks.back().text.size() < kChunkBytes) {
      Chunk& last = chunks.back();
      const auto begin = static_cast<size_t>(last.text.data() - text.data());
      last.text = text.substr(begin, end - begin);
      ++last.expected;
      return;
    }
    chunks.push_back({text.substr(start, end - start), documents, start_line, 1});
  };
  int line_base = 0;
  for (const PartScan& s : scans) {
    for (const Marker& m : s.markers) {
      content = content || m.content_before;
      close(m.opens ? m.begin : m.end);
      start = m.opens ? m.begin : m.end;
      start_line = line_base + m.line + (m.opens ? 0 : 1);
      explicit_doc = m.opens;
      content = false;
    }
    content = content || s.content_after;
    line_base += s.lines;
  }
  close(text.size());
  return chunks;
}

}  // namespace scoria::input
