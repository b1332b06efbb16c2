// How much untrusted text may ask of the reader. Every way input enters
// (object files, API bodies, configs) reads under one of these, so that any
// input is accepted or refused in time and memory proportional to its size.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace scoria::input {

struct Limits {
  size_t max_bytes = 0;         // the whole text
  size_t max_documents = 0;     // "---"-separated documents
  size_t max_depth = 0;         // nesting of mappings and sequences
  size_t max_scalar_bytes = 0;  // one string, key or value
  size_t max_aliases = 0;       // alias (*name) uses
  size_t max_alias_nodes = 0;   // nodes copied through aliases, in all
  // A key twice in one mapping is an error here, unless the caller reports
  // it itself with more to say (the config reader names both lines).
  bool refuse_duplicate_keys = true;
};

/// Refuses, with a message naming `origin` and the place, text past
/// `limits.max_bytes`, text that is not valid UTF-8, and a NUL byte (which
/// YAML and JSON do not allow): checked before any parser sees the text.
void check_text(std::string_view text, std::string_view origin, const Limits& limits);

/// check_text in parts, for a reader that looks at the bytes anyway: the
/// size first, then the faults it found (offsets into `text`), refused as
/// check_text refuses them (ill-formed UTF-8 before a NUL).
void check_size(std::string_view text, std::string_view origin, const Limits& limits);
struct ByteFaults {
  std::optional<size_t> bad_utf8;  // the first ill-formed sequence
  std::optional<size_t> nul;       // the first NUL byte
};
ByteFaults find_byte_faults(std::string_view text);
void refuse_byte_faults(std::string_view text, std::string_view origin, const ByteFaults& faults);

/// Object files given to `simulate` or `check-config`: large clusters
/// (S2 is ~250 MB of YAML in 160,000 documents), but no alias bombs.
constexpr Limits kFileLimits{
    .max_bytes = size_t{2} << 30,
    .max_documents = 10'000'000,
    .max_depth = 64,
    .max_scalar_bytes = size_t{1} << 20,
    .max_aliases = 1000,
    .max_alias_nodes = 10'000,
};

/// One API request body: the API server's own limit is 3 MiB.
constexpr Limits kRequestLimits{
    .max_bytes = size_t{3} << 20,
    .max_documents = 10'000,
    .max_depth = 64,
    .max_scalar_bytes = size_t{1} << 20,
    .max_aliases = 100,
    .max_alias_nodes = 10'000,
};

/// Many objects in one request (the local API's multi-document apply), up
/// to the HTTP server's body limit.
constexpr Limits kApplyLimits{
    .max_bytes = size_t{8} << 20,
    .max_documents = 100'000,
    .max_depth = 64,
    .max_scalar_bytes = size_t{1} << 20,
    .max_aliases = 100,
    .max_alias_nodes = 10'000,
};

/// A scheduler config.
constexpr Limits kConfigLimits{
    .max_bytes = size_t{4} << 20,
    .max_documents = 16,
    .max_depth = 64,
    .max_scalar_bytes = size_t{1} << 20,
    .max_aliases = 100,
    .max_alias_nodes = 10'000,
    .refuse_duplicate_keys = false,
};

}  // namespace scoria::input
