// The protocol buffers wire format, read under bounds: the records of one
// message (field number, wire type, value) as Kubernetes' protobuf bodies
// hold them. Nothing here knows a message; protobuf_message.h gives the
// records meaning. Every malformed input (a varint past ten bytes or past
// the end, a length past the end, field number 0, a wire type that does
// not exist, groups nested too deep or left open) is a WireError naming
// what was wrong and where, never a read past the input.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace scoria::api::protobuf {

class WireError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class WireType : uint8_t {
  kVarint = 0,
  kFixed64 = 1,
  kLength = 2,
  kStartGroup = 3,
  kEndGroup = 4,
  kFixed32 = 5,
};

/// The name of a wire type as an error names it ("varint", "length-delimited").
std::string_view wire_type_name(WireType type);

/// One record. `varint` holds a varint's value and a fixed field's bits;
/// `bytes` a length-delimited field's bytes (a view into the input), or a
/// group's, through its end marker (groups are only ever skipped).
struct WireField {
  uint32_t number = 0;
  WireType type = WireType::kVarint;
  uint64_t varint = 0;
  std::string_view bytes;
};

/// The records of one message, in order, over bytes it does not own.
class WireReader {
 public:
  /// Groups (proto2's deprecated kind of nested message, which no
  /// Kubernetes message uses) are skipped whole; deeper nesting than this
  /// is an error, so that a hostile body cannot make skipping unbounded.
  static constexpr int kMaxGroupDepth = 32;

  explicit WireReader(std::string_view data) : data_(data) {}

  bool done() const { return pos_ >= data_.size(); }
  /// The next record; throws WireError.
  WireField next();

  /// A varint read from the start of `data`, `pos` moved past it; throws
  /// WireError past ten bytes, past 64 bits or past the end.
  static uint64_t read_varint(std::string_view data, size_t& pos);

 private:
  std::string_view take(uint64_t n, std::string_view what);
  void skip_group(uint32_t number);

  std::string_view data_;
  size_t pos_ = 0;
};

}  // namespace scoria::api::protobuf
