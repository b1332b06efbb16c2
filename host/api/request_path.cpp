#include "api/request_path.h"

#include <vector>

#include "api/status.h"
#include "input/utf8.h"

namespace scoria::api {

namespace {

int hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string decoded(std::string_view s) {
  auto d = percent_decode(s);
  if (!d)
    throw bad_request("malformed percent-encoding in path segment \"" + std::string(s) +
                      "\" (each % takes two hex digits, and the bytes must be UTF-8)");
  return *d;
}

}  // namespace

std::vector<std::string_view> split_path(std::string_view path) {
  std::vector<std::string_view> out;
  while (!path.empty()) {
    const size_t slash = path.find('/');
    if (slash != 0) out.push_back(path.substr(0, slash));
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  return out;
}

std::optional<std::string> percent_decode(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out += s[i];
      continue;
    }
    if (i + 2 >= s.size()) return std::nullopt;
    const int hi = hex(s[i + 1]), lo = hex(s[i + 2]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out += static_cast<char>(hi * 16 + lo);
    i += 2;
  }
  if (input::invalid_utf8_at(out)) return std::nullopt;
  return out;
}

void check_target(std::string_view target) {
  for (size_t i = 0; i < target.size(); ++i) {
    const auto c = static_cast<unsigned char>(target[i]);
    if (c < 0x20 || c >= 0x7f) {
      throw bad_request("byte " + std::to_string(i) +
                        " of the request target is not printable ASCII; percent-encode it "
                        "(as %XX of its UTF-8 bytes)");
    }
  }
}

std::vector<std::string> query_params(std::string_view query, std::string_view key) {
  std::vector<std::string> values;
  while (!query.empty()) {
    const size_t amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    const size_t eq = pair.find('=');
    if (pair.substr(0, eq) == key) {
      std::string raw(eq == std::string_view::npos ? std::string_view{} : pair.substr(eq + 1));
      for (char& c : raw)
        if (c == '+') c = ' ';
      auto value = percent_decode(raw);
      if (!value)
        throw bad_request("malformed percent-encoding in query parameter " + std::string(key));
      values.push_back(std::move(*value));
    }
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  return values;
}

std::optional<std::string> query_param(std::string_view query, std::string_view key) {
  std::vector<std::string> values = query_params(query, key);
  if (values.empty()) return std::nullopt;
  return std::move(values.front());
}

std::optional<ResourcePath> parse_resource_path(std::string_view path) {
  const std::vector<std::string_view> seg = split_path(path);
  size_t i = 0;
  std::string_view group, version;
  if (seg.size() >= 2 && seg[0] == "api" && seg[1] == "v1") {
    version = "v1";
    i = 2;
  } else if (seg.size() >= 3 && seg[0] == "apis") {
    group = seg[1];
    version = seg[2];
    i = 3;
  } else {
    return std::nullopt;
  }
  ResourcePath out;
  if (i < seg.size() && seg[i] == "watch") {
    out.watch_prefix = true;
    ++i;
  }
  if (i >= seg.size()) return std::nullopt;
  // namespaces/{ns}/{plural}...: a namespaced resource in one namespace.
  if (seg[i] == "namespaces" && i + 2 < seg.size() &&
      find_resource(group, version, seg[i + 2]) != nullptr) {
    out.namespace_ = decoded(seg[i + 1]);
    i += 2;
  }
  out.resource = find_resource(group, version, seg[i]);
  if (out.resource == nullptr) return std::nullopt;
  ++i;
  if (!out.namespace_.empty() && !out.resource->namespaced)
    throw not_found(out.resource->group, out.resource->plural, "");
  if (i < seg.size()) out.name = decoded(seg[i++]);
  if (i < seg.size()) out.subresource = std::string(seg[i++]);
  if (i < seg.size())
    throw ApiError(404, "NotFound", "the server could not find the requested resource");
  return out;
}

}  // namespace scoria::api
