#include "trace/unique_names.h"

#include <cstring>

namespace scoria::trace {

UniqueNames::UniqueNames()
    : offsets_(
          0, [this](uint64_t o) { return std::hash<std::string_view>()(at(o)); },
          [this](uint64_t a, uint64_t b) { return at(a) == at(b); }) {}

std::string_view UniqueNames::at(uint64_t offset) const {
  const char* p = text_.data() + offset;
  return {p, std::strlen(p)};
}

bool UniqueNames::insert(std::string_view name) {
  // The name goes in first, so the set can hash and compare it by offset;
  // a repeat takes it out again.
  const uint64_t offset = text_.size();
  text_.append(name);
  text_.push_back('\0');
  if (offsets_.insert(offset).second) return true;
  text_.resize(offset);
  return false;
}

}  // namespace scoria::trace
