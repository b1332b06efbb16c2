#include "input/field_path.h"

#include <algorithm>

namespace scoria::input {

namespace {

bool plain(std::string_view key) {
  return !key.empty() && std::all_of(key.begin(), key.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
  });
}

}  // namespace

void FieldPath::append_key(std::string& out, std::string_view key) {
  if (!plain(key)) {
    out += '[';
    out += key;
    out += ']';
    return;
  }
  if (!out.empty()) out += '.';
  out += key;
}

void FieldPath::append_index(std::string& out, size_t i) {
  out += '[';
  out += std::to_string(i);
  out += ']';
}

void FieldPath::append(std::string& out) const {
  if (parent_ == nullptr) return;
  parent_->append(out);
  if (index_ != kNoIndex) {
    append_index(out, index_);
  } else {
    append_key(out, key_);
  }
}

}  // namespace scoria::input
