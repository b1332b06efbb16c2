// The job names of a trace seen so far, to refuse one used twice: held in
// one buffer of text and a set of offsets into it, a few dozen bytes a name,
// since a trace may have tens of millions of jobs.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_set>

namespace scoria::trace {

class UniqueNames {
 public:
  UniqueNames();
  UniqueNames(const UniqueNames&) = delete;
  UniqueNames& operator=(const UniqueNames&) = delete;

  /// Adds `name`; false if it was there already.
  bool insert(std::string_view name);

 private:
  std::string_view at(uint64_t offset) const;

  // Each name followed by a NUL.
  std::string text_;
  std::unordered_set<uint64_t, std::function<size_t(uint64_t)>,
                     std::function<bool(uint64_t, uint64_t)>>
      offsets_;
};

}  // namespace scoria::trace
