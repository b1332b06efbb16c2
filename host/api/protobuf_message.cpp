#include "api/protobuf_message.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <ctime>
#include <string>

#include "api/protobuf_wire.h"

namespace scoria::api::protobuf {

namespace {

using nlohmann::json;

// A WireError that already names its field's path: enclosing messages
// pass it on as it is instead of naming their own field again.
class FieldError : public WireError {
 public:
  using WireError::WireError;
};

std::string join(std::string_view path, std::string_view name) {
  if (path.empty()) return std::string(name);
  return std::string(path) + "." + std::string(name);
}

WireType wire_type_of(Type t) {
  switch (t) {
    case Type::kBool:
    case Type::kInt32:
    case Type::kInt64:
      return WireType::kVarint;
    default:
      return WireType::kLength;
  }
}

std::string base64(std::string_view bytes) {
  static constexpr std::string_view kAlphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const uint32_t v = static_cast<uint32_t>(static_cast<uint8_t>(bytes[i])) << 16 |
                       static_cast<uint32_t>(static_cast<uint8_t>(bytes[i + 1])) << 8 |
                       static_cast<uint8_t>(bytes[i + 2]);
    for (int s = 18; s >= 0; s -= 6) out.push_back(kAlphabet[(v >> s) & 63]);
  }
  if (const size_t left = bytes.size() - i; left > 0) {
    uint32_t v = static_cast<uint32_t>(static_cast<uint8_t>(bytes[i])) << 16;
    if (left == 2) v |= static_cast<uint32_t>(static_cast<uint8_t>(bytes[i + 1])) << 8;
    out.push_back(kAlphabet[(v >> 18) & 63]);
    out.push_back(kAlphabet[(v >> 12) & 63]);
    out.push_back(left == 2 ? kAlphabet[(v >> 6) & 63] : '=');
    out.push_back('=');
  }
  return out;
}

// Seconds since the epoch as Go's metav1.Time writes them in JSON
// (RFC 3339, UTC, whole seconds). Go refuses years outside 0..9999.
std::string rfc3339(int64_t seconds) {
  constexpr int64_t kFirst = -62167219200;  // 0000-01-01T00:00:00Z
  constexpr int64_t kLast = 253402300799;   // 9999-12-31T23:59:59Z
  if (seconds < kFirst || seconds > kLast)
    throw WireError("time " + std::to_string(seconds) + "s is outside the years 0 to 9999");
  const std::time_t t = static_cast<std::time_t>(seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  std::array<char, 48> text{};
  std::snprintf(text.data(), text.size(), "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
  return text.data();
}

json quantity(std::string_view bytes) {
  std::string text;
  for (WireReader r(bytes); !r.done();) {
    const WireField f = r.next();
    if (f.number != 1) continue;
    if (f.type != WireType::kLength) throw WireError("wrong wire type for a quantity's string");
    text = valid_utf8(f.bytes);
  }
  // An empty Quantity is zero, which Go writes as "0".
  return text.empty() ? json("0") : json(text);
}

json int_or_string(std::string_view bytes) {
  int64_t type = 0;
  int32_t number = 0;
  std::string text;
  for (WireReader r(bytes); !r.done();) {
    const WireField f = r.next();
    if (f.number < 1 || f.number > 3) continue;
    const WireType want = f.number == 3 ? WireType::kLength : WireType::kVarint;
    if (f.type != want)
      throw WireError("wrong wire type for an int-or-string's field " + std::to_string(f.number));
    if (f.number == 1) type = static_cast<int64_t>(f.varint);
    if (f.number == 2) number = static_cast<int32_t>(static_cast<uint32_t>(f.varint));
    if (f.number == 3) text = valid_utf8(f.bytes);
  }
  if (type == 0) return number;
  if (type == 1) return text;
  throw WireError("int-or-string type " + std::to_string(type) +
                  " is neither 0 (int) nor 1 (string)");
}

json time_value(std::string_view bytes) {
  // Go decodes an empty message as the zero time, which JSON writes as null.
  if (bytes.empty()) return nullptr;
  int64_t seconds = 0;
  for (WireReader r(bytes); !r.done();) {
    const WireField f = r.next();
    if (f.number != 1 && f.number != 2) continue;
    if (f.type != WireType::kVarint)
      throw WireError("wrong wire type for a time's field " + std::to_string(f.number));
    // Nanoseconds are dropped, as Go's decoder drops them.
    if (f.number == 1) seconds = static_cast<int64_t>(f.varint);
  }
  return rfc3339(seconds);
}

void read_message(const Message& m, std::string_view bytes, json& out, int depth,
                  const std::string& path);

json scalar(const Field& f, const WireField& w, int depth, const std::string& path) {
  switch (f.type) {
    case Type::kString:
      return valid_utf8(w.bytes);
    case Type::kBytes:
      return base64(w.bytes);
    case Type::kBool:
      return w.varint != 0;
    case Type::kInt32:
      // Negative values come as ten-byte varints; Go truncates to 32 bits.
      return static_cast<int32_t>(static_cast<uint32_t>(w.varint));
    case Type::kInt64:
      return static_cast<int64_t>(w.varint);
    case Type::kQuantity:
      return quantity(w.bytes);
    case Type::kIntOrString:
      return int_or_string(w.bytes);
    case Type::kTime:
      return time_value(w.bytes);
    case Type::kMessage: {
      json out = json::object();
      read_message(*f.message, w.bytes, out, depth + 1, path);
      return out;
    }
  }
  return nullptr;
}

void check_wire_type(const Field& f, const WireField& w, WireType want) {
  if (w.type != want) {
    throw WireError("wrong wire type " + std::string(wire_type_name(w.type)) + " for field " +
                    std::to_string(f.number) + ", expected " + std::string(wire_type_name(want)));
  }
}

void map_entry(const Field& f, const WireField& w, json& out, int depth, const std::string& path) {
  check_wire_type(f, w, WireType::kLength);
  // A missing key or value is the zero value, as Go reads map entries.
  std::string key;
  json value;
  bool has_value = false;
  for (WireReader r(w.bytes); !r.done();) {
    const WireField e = r.next();
    if (e.number == 1) {
      check_wire_type(f, e, WireType::kLength);
      key = valid_utf8(e.bytes);
    } else if (e.number == 2) {
      check_wire_type(f, e, wire_type_of(f.type));
      value = scalar(f, e, depth, path + "[" + key + "]");
      has_value = true;
    }
  }
  if (!has_value) {
    WireField empty;
    empty.type = wire_type_of(f.type);
    value = scalar(f, empty, depth, path + "[" + key + "]");
  }
  json& map = out[std::string(f.json)];
  if (!map.is_object()) map = json::object();
  map[key] = std::move(value);  // the last of a repeated key wins
}

void repeated(const Field& f, const WireField& w, json& out, int depth, const std::string& path) {
  json& list = out[std::string(f.json)];
  if (!list.is_array()) list = json::array();
  const WireType want = wire_type_of(f.type);
  if (want == WireType::kVarint && w.type == WireType::kLength) {
    // Packed numbers: Go accepts both encodings of a repeated scalar.
    size_t pos = 0;
    while (pos < w.bytes.size()) {
      WireField one;
      one.varint = WireReader::read_varint(w.bytes, pos);
      list.push_back(scalar(f, one, depth, path));
    }
    return;
  }
  check_wire_type(f, w, want);
  list.push_back(scalar(f, w, depth, path + "[" + std::to_string(list.size()) + "]"));
}

bool empty_value(const json& v) {
  if (v.is_null()) return true;
  if (v.is_string()) return v.get_ref<const std::string&>().empty();
  if (v.is_boolean()) return !v.get<bool>();
  if (v.is_number()) return v == 0;
  if (v.is_array()) return v.empty();
  return false;  // a struct is never empty to omitempty
}

// What Go writes for a non-pointer field without omitempty that is zero.
json zero_value(const Field& f, int depth, const std::string& path) {
  if (f.label != Label::kSingle) return nullptr;  // a nil slice or map: null
  WireField empty;
  empty.type = wire_type_of(f.type);
  return scalar(f, empty, depth, path);
}

void read_message(const Message& m, std::string_view bytes, json& out, int depth,
                  const std::string& path) {
  if (depth > kMaxMessageDepth)
    throw FieldError(path + ": messages nested deeper than " + std::to_string(kMaxMessageDepth));
  if (!out.is_object()) out = json::object();
  WireReader reader(bytes);
  while (!reader.done()) {
    WireField w;
    try {
      w = reader.next();
    } catch (const FieldError&) {
      throw;
    } catch (const WireError& e) {
      throw FieldError(path.empty() ? std::string(e.what()) : path + ": " + e.what());
    }
    const auto f = std::find_if(m.fields.begin(), m.fields.end(),
                                [&](const Field& field) { return field.number == w.number; });
    if (f == m.fields.end()) continue;  // unknown to this table: skipped, as Go skips it
    const std::string at = join(path, f->json);
    try {
      switch (f->label) {
        case Label::kMap:
          map_entry(*f, w, out, depth, at);
          break;
        case Label::kRepeated:
          repeated(*f, w, out, depth, at);
          break;
        case Label::kSingle:
          check_wire_type(*f, w, wire_type_of(f->type));
          if (f->type == Type::kMessage)
            // A message that comes twice is merged, as Go merges it.
            read_message(*f->message, w.bytes, out[std::string(f->json)], depth + 1, at);
          else
            out[std::string(f->json)] = scalar(*f, w, depth, at);
          break;
      }
    } catch (const FieldError&) {
      throw;
    } catch (const WireError& e) {
      throw FieldError(at + " (" + std::string(m.name) + " field " + std::to_string(f->number) +
                       "): " + e.what());
    }
  }
  // encoding/json's rules for what the Go struct would write.
  for (const Field& f : m.fields) {
    const std::string name(f.json);
    const auto it = out.find(name);
    if (it == out.end()) {
      if (f.emit != Emit::kAlways) continue;
      if (json zero = zero_value(f, depth, join(path, name)); !zero.is_null())
        out[name] = std::move(zero);
      continue;
    }
    if (it->is_null() || (f.emit == Emit::kOmitEmpty && empty_value(*it))) out.erase(it);
  }
}

}  // namespace

json to_json(const Message& message, std::string_view bytes) {
  json out = json::object();
  read_message(message, bytes, out, 0, "");
  return out;
}

std::string valid_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<uint8_t>(text[i]);
    size_t n = 0;
    uint32_t min = 0;
    if (c < 0x80) {
      out.push_back(static_cast<char>(c));
      ++i;
      continue;
    }
    if (c >= 0xc2 && c <= 0xdf) {
      n = 1;
      min = 0x80;
    } else if (c >= 0xe0 && c <= 0xef) {
      n = 2;
      min = 0x800;
    } else if (c >= 0xf0 && c <= 0xf4) {
      n = 3;
      min = 0x10000;
    }
    bool ok = n > 0;
    uint32_t cp = n == 1 ? c & 0x1f : n == 2 ? c & 0x0f : c & 0x07;
    for (size_t k = 1; ok && k <= n; ++k) {
      if (i + k >= text.size()) {
        ok = false;
        break;
      }
      const auto cc = static_cast<uint8_t>(text[i + k]);
      if ((cc & 0xc0) != 0x80) ok = false;
      cp = (cp << 6) | (cc & 0x3f);
    }
    if (ok && (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))) ok = false;
    if (!ok) {
      out.append("\xef\xbf\xbd");
      ++i;
      continue;
    }
    out.append(text.substr(i, n + 1));
    i += n + 1;
  }
  return out;
}

}  // namespace scoria::api::protobuf
