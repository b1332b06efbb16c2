#include "decode/storage_fields.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include "model/quantity.h"
#include "model/storage.h"

namespace scoria::decode {

namespace {

constexpr std::string_view kModes =
    "use ReadWriteOnce, ReadOnlyMany, ReadWriteMany or ReadWriteOncePod";

}  // namespace

uint8_t access_modes(const FieldReader& r, const Node& spec, const FieldPath& spec_path) {
  static constexpr std::array<std::pair<std::string_view, model::AccessMode>, 4> kByName{{
      {"ReadWriteOnce", model::kReadWriteOnce},
      {"ReadOnlyMany", model::kReadOnlyMany},
      {"ReadWriteMany", model::kReadWriteMany},
      {"ReadWriteOncePod", model::kReadWriteOncePod},
  }};
  const FieldPath at = spec_path.field("accessModes");
  uint8_t modes = 0;
  r.each(spec, "accessModes", spec_path, [&](const Node& n, const FieldPath& item) {
    const std::string mode = r.text(n, item);
    const auto* found = std::find_if(kByName.begin(), kByName.end(),
                                     [&](const auto& m) { return m.first == mode; });
    if (found == kByName.end())
      r.fail(item,
             (mode.empty() ? std::string("is empty") : quote(mode) + " is not an access mode") +
                 "; " + std::string(kModes));
    modes |= found->second;
  });
  if (modes == 0) {
    r.fail(at, (FieldReader::present(FieldReader::get(spec, "accessModes")) ? "is empty"
                                                                            : "is missing") +
                   std::string("; give at least one access mode, e.g. [ReadWriteOnce]"));
  }
  // The API server's rule: a volume one pod may use is used by no other way.
  if ((modes & model::kReadWriteOncePod) != 0 && modes != model::kReadWriteOncePod)
    r.fail(at, "ReadWriteOncePod cannot be given with other access modes; give it alone");
  return modes;
}

bool block_mode(const FieldReader& r, const Node& spec, const FieldPath& spec_path) {
  const std::string mode = r.text_field(spec, "volumeMode", spec_path);
  if (mode.empty() || mode == "Filesystem") return false;
  if (mode == "Block") return true;
  r.fail(spec_path.field("volumeMode"),
         quote(mode) + " is not a volume mode; use Filesystem or Block");
}

double bytes(const FieldReader& r, const Node& n, const FieldPath& at) {
  const std::string value = r.text(n, at);
  if (value.empty()) r.fail(at, "has no value; write a quantity, e.g. \"10Gi\"");
  double q = 0;
  try {
    q = model::parse_quantity(value);
  } catch (const std::invalid_argument& bad) {
    r.fail(at, bad.what());
  }
  if (q < 0) r.fail(at, quote(value) + " is negative; a size must be 0 or more");
  return std::ceil(q);
}

std::optional<double> bytes_field(const FieldReader& r, const Node& map, std::string_view key,
                                  const FieldPath& parent) {
  const Node& n = FieldReader::get(map, key);
  if (!FieldReader::present(n)) return std::nullopt;
  return bytes(r, n, parent.field(key));
}

}  // namespace scoria::decode
