#include "api/media_type.h"

#include <algorithm>
#include <cctype>

namespace scoria::api {

std::string media_type(std::string_view content_type) {
  std::string_view base = content_type.substr(0, content_type.find(';'));
  while (!base.empty() && (base.front() == ' ' || base.front() == '\t')) base.remove_prefix(1);
  while (!base.empty() && (base.back() == ' ' || base.back() == '\t')) base.remove_suffix(1);
  std::string out(base);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

}  // namespace scoria::api
