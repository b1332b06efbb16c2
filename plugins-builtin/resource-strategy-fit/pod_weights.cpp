#include "pod_weights.h"

#include <cstddef>
#include <limits>

namespace rsf {

namespace {

// A recursive-descent reader of exactly what the annotation may hold; a
// general JSON library would be one more dependency for a flat object.
class Reader {
 public:
  explicit Reader(std::string_view s) : s_(s) {}

  std::optional<PodWeights> object() {
    PodWeights out;
    skip_space();
    if (literal("null")) return finish(std::move(out));
    if (!consume('{')) return std::nullopt;
    skip_space();
    if (consume('}')) return finish(std::move(out));
    while (true) {
      skip_space();
      std::string key;
      if (!string(key)) return std::nullopt;
      skip_space();
      if (!consume(':')) return std::nullopt;
      skip_space();
      int64_t value = 0;
      if (!literal("null") && !integer(value)) return std::nullopt;
      put(out, std::move(key), value);
      skip_space();
      if (consume('}')) return finish(std::move(out));
      if (!consume(',')) return std::nullopt;
    }
  }

 private:
  std::optional<PodWeights> finish(PodWeights out) {
    skip_space();
    if (pos_ != s_.size()) return std::nullopt;
    return out;
  }

  static void put(PodWeights& out, std::string key, int64_t value) {
    for (auto& [k, v] : out)
      if (k == key) {
        v = value;
        return;
      }
    out.emplace_back(std::move(key), value);
  }

  void skip_space() {
    while (pos_ < s_.size() &&
           (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r'))
      ++pos_;
  }
  bool consume(char c) {
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool literal(std::string_view word) {
    if (s_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  static int hex(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }
  bool hex4(uint32_t& out) {
    if (s_.size() - pos_ < 4) return false;
    out = 0;
    for (int i = 0; i < 4; ++i) {
      const int h = hex(s_[pos_++]);
      if (h < 0) return false;
      out = out * 16 + static_cast<uint32_t>(h);
    }
    return true;
  }
  static void utf8(std::string& out, uint32_t cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  bool string(std::string& out) {
    if (!consume('"')) return false;
    while (pos_ < s_.size()) {
      const char c = s_[pos_++];
      if (c == '"') return true;
      if (static_cast<unsigned char>(c) < 0x20) return false;
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ == s_.size()) return false;
      const char e = s_[pos_++];
      if (e != 'u') {
        // JSON's one-letter escapes and what they stand for.
        constexpr std::string_view kEscapes = "\"\\/bfnrt";
        constexpr std::string_view kMeanings = "\"\\/\b\f\n\r\t";
        const size_t at = kEscapes.find(e);
        if (at == std::string_view::npos) return false;
        out += kMeanings[at];
        continue;
      }
      uint32_t cp = 0;
      if (!hex4(cp)) return false;
      if (cp >= 0xD800 && cp < 0xDC00 && s_.substr(pos_, 2) == "\\u") {
        const size_t back = pos_;
        pos_ += 2;
        uint32_t low = 0;
        if (hex4(low) && low >= 0xDC00 && low < 0xE000)
          cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
        else
          pos_ = back;
      }
      if (cp >= 0xD800 && cp < 0xE000) cp = 0xFFFD;  // a lone surrogate, as Go reads it
      utf8(out, cp);
    }
    return false;
  }

  // JSON's number grammar; only whole numbers within int64 fit Go's int.
  bool integer(int64_t& out) {
    const bool negative = consume('-');
    const size_t digits = pos_;
    while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') ++pos_;
    const std::string_view whole = s_.substr(digits, pos_ - digits);
    if (whole.empty() || (whole.size() > 1 && whole.front() == '0')) return false;
    if (pos_ < s_.size() && (s_[pos_] == '.' || s_[pos_] == 'e' || s_[pos_] == 'E'))
      return false;  // a fraction or an exponent: Go will not put it in an int
    // Accumulated negatively, so that INT64_MIN fits.
    int64_t v = 0;
    constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
    for (char c : whole) {
      const int d = c - '0';
      if (v < (kMin + d) / 10) return false;
      v = v * 10 - d;
    }
    if (!negative) {
      if (v == kMin) return false;
      v = -v;
    }
    out = v;
    return true;
  }

  std::string_view s_;
  size_t pos_ = 0;
};

}  // namespace

std::optional<PodWeights> parse_pod_weights(std::string_view json) { return Reader(json).object(); }

const int64_t* find_weight(const PodWeights& weights, std::string_view resource) {
  for (const auto& [name, weight] : weights)
    if (name == resource) return &weight;
  return nullptr;
}

}  // namespace rsf
