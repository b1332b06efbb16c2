#include "api/protobuf_wire.h"

namespace scoria::api::protobuf {

namespace {

std::string at(size_t pos) { return " at byte " + std::to_string(pos); }

}  // namespace

std::string_view wire_type_name(WireType type) {
  switch (type) {
    case WireType::kVarint:
      return "varint";
    case WireType::kFixed64:
      return "fixed64";
    case WireType::kLength:
      return "length-delimited";
    case WireType::kStartGroup:
      return "start group";
    case WireType::kEndGroup:
      return "end group";
    case WireType::kFixed32:
      return "fixed32";
  }
  return "unknown";
}

uint64_t WireReader::read_varint(std::string_view data, size_t& pos) {
  const size_t start = pos;
  uint64_t value = 0;
  for (int i = 0; i < 10; ++i) {
    if (pos >= data.size())
      throw WireError("unexpected EOF: the varint" + at(start) + " runs past the end");
    const auto byte = static_cast<uint8_t>(data[pos++]);
    // The tenth byte holds bit 63 alone; anything more does not fit.
    if (i == 9 && byte > 1) throw WireError("integer overflow: the varint" + at(start));
    value |= static_cast<uint64_t>(byte & 0x7f) << (7 * i);
    if ((byte & 0x80) == 0) return value;
  }
  throw WireError("integer overflow: the varint" + at(start) + " is longer than ten bytes");
}

std::string_view WireReader::take(uint64_t n, std::string_view what) {
  // Compared with what is left, never added to the position first: a
  // length near 2^64 must not wrap around.
  if (n > data_.size() - pos_) {
    throw WireError("unexpected EOF: " + std::string(what) + at(pos_) + " needs " +
                    std::to_string(n) + " bytes, " + std::to_string(data_.size() - pos_) +
                    " are left");
  }
  const std::string_view out = data_.substr(pos_, static_cast<size_t>(n));
  pos_ += static_cast<size_t>(n);
  return out;
}

WireField WireReader::next() {
  const size_t start = pos_;
  const uint64_t key = read_varint(data_, pos_);
  const uint64_t number = key >> 3;
  const auto type = static_cast<unsigned>(key & 7);
  if (number == 0) {
    throw WireError("illegal tag 0 (wire type " + std::to_string(type) + ")" + at(start));
  }
  // Field numbers are 29 bits.
  if (number > (uint64_t{1} << 29) - 1)
    throw WireError("field number " + std::to_string(number) + at(start) + " is out of range");
  WireField f;
  f.number = static_cast<uint32_t>(number);
  switch (type) {
    case 0:
      f.type = WireType::kVarint;
      f.varint = read_varint(data_, pos_);
      return f;
    case 1: {
      f.type = WireType::kFixed64;
      const std::string_view b = take(8, "a fixed64 value");
      for (size_t i = 8; i-- > 0;) f.varint = (f.varint << 8) | static_cast<uint8_t>(b[i]);
      return f;
    }
    case 2: {
      f.type = WireType::kLength;
      const uint64_t n = read_varint(data_, pos_);
      f.bytes = take(n, "field " + std::to_string(number));
      return f;
    }
    case 3: {
      f.type = WireType::kStartGroup;
      const size_t inside = pos_;
      skip_group(f.number);
      f.bytes = data_.substr(inside, pos_ - inside);
      return f;
    }
    case 4:
      throw WireError("end group for field " + std::to_string(number) + at(start) +
                      " without its start");
    case 5: {
      f.type = WireType::kFixed32;
      const std::string_view b = take(4, "a fixed32 value");
      for (size_t i = 4; i-- > 0;) f.varint = (f.varint << 8) | static_cast<uint8_t>(b[i]);
      return f;
    }
    default:
      throw WireError("illegal wire type " + std::to_string(type) + " for field " +
                      std::to_string(number) + at(start));
  }
}

void WireReader::skip_group(uint32_t number) {
  // Iterative, with the open groups' numbers on a bounded stack: each end
  // must close the innermost one.
  uint32_t open[kMaxGroupDepth];
  int depth = 0;
  open[depth++] = number;
  while (depth > 0) {
    if (done()) {
      throw WireError("unexpected EOF: group " + std::to_string(open[depth - 1]) +
                      " is not closed");
    }
    const size_t start = pos_;
    const uint64_t key = read_varint(data_, pos_);
    const uint64_t n = key >> 3;
    const auto type = static_cast<unsigned>(key & 7);
    if (n == 0)
      throw WireError("illegal tag 0 (wire type " + std::to_string(type) + ")" + at(start));
    switch (type) {
      case 0:
        (void)read_varint(data_, pos_);
        break;
      case 1:
        (void)take(8, "a fixed64 value");
        break;
      case 2:
        (void)take(read_varint(data_, pos_), "field " + std::to_string(n));
        break;
      case 3:
        if (depth == kMaxGroupDepth)
          throw WireError("groups nested deeper than " + std::to_string(kMaxGroupDepth) +
                          at(start));
        open[depth++] = static_cast<uint32_t>(n);
        break;
      case 4:
        if (n != open[depth - 1]) {
          throw WireError("end group " + std::to_string(n) + at(start) + " closes group " +
                          std::to_string(open[depth - 1]));
        }
        --depth;
        break;
      case 5:
        (void)take(4, "a fixed32 value");
        break;
      default:
        throw WireError("illegal wire type " + std::to_string(type) + " for field " +
                        std::to_string(n) + at(start));
    }
  }
}

}  // namespace scoria::api::protobuf
