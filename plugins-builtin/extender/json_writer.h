// A minimal JSON text writer for the request bodies. Written by hand rather
// than through a DOM so that objects the host already holds as JSON (a
// Pod, a Queue) are spliced in as they are, without parsing them again.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace scoria_extender {

class JsonWriter {
 public:
  std::string& text() { return out_; }

  JsonWriter& begin_object() { return open('{'); }
  JsonWriter& end_object() { return close('}'); }
  JsonWriter& begin_array() { return open('['); }
  JsonWriter& end_array() { return close(']'); }

  /// An object key; the value written next belongs to it.
  JsonWriter& key(std::string_view k) {
    comma();
    quoted(k);
    out_ += ':';
    after_key_ = true;
    return *this;
  }

  JsonWriter& string(std::string_view s) {
    comma();
    quoted(s);
    return *this;
  }
  JsonWriter& boolean(bool b) { return raw(b ? "true" : "false"); }
  JsonWriter& null() { return raw("null"); }
  JsonWriter& integer(int64_t v) {
    char buf[24];
    const int n = std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
    return raw(std::string_view(buf, static_cast<size_t>(n)));
  }
  /// A number as Go writes a float64: the shortest text that reads back the
  /// same (never NaN or an infinity, which JSON has no words for: 0).
  JsonWriter& number(double v) {
    if (!std::isfinite(v)) v = 0;
    char buf[32];
    int n = std::snprintf(buf, sizeof buf, "%.15g", v);
    if (std::strtod(buf, nullptr) != v) n = std::snprintf(buf, sizeof buf, "%.17g", v);
    return raw(std::string_view(buf, static_cast<size_t>(n)));
  }
  /// A value already in JSON (the host's object JSON); `null` when empty.
  JsonWriter& raw(std::string_view json) {
    comma();
    out_ += json.empty() ? std::string_view("null") : json;
    return *this;
  }

 private:
  JsonWriter& open(char c) {
    comma();
    out_ += c;
    first_ = true;
    return *this;
  }
  JsonWriter& close(char c) {
    out_ += c;
    first_ = false;
    return *this;
  }
  // A comma before every value of an object or array but the first; none
  // between a key and its value.
  void comma() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (!first_ && !out_.empty()) out_ += ',';
    first_ = false;
  }
  // Runs of characters that need no escape are copied whole.
  void quoted(std::string_view s) {
    out_ += '"';
    size_t run = 0;
    for (size_t i = 0; i < s.size(); ++i) {
      const auto c = static_cast<unsigned char>(s[i]);
      if (c != '"' && c != '\\' && c >= 0x20) continue;
      out_.append(s.data() + run, i - run);
      run = i + 1;
      if (c == '"' || c == '\\') {
        out_ += '\\';
        out_ += static_cast<char>(c);
      } else {
        static constexpr char kHex[] = "0123456789abcdef";
        out_ += "\\u00";
        out_ += kHex[c >> 4];
        out_ += kHex[c & 0xF];
      }
    }
    out_.append(s.data() + run, s.size() - run);
    out_ += '"';
  }

  std::string out_;
  bool first_ = true;
  bool after_key_ = false;
};

}  // namespace scoria_extender
