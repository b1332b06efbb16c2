#include "model/storage.h"

namespace scoria::model {

namespace {
constexpr const char* kBetaClass = "volume.beta.kubernetes.io/storage-class";
}  // namespace

const std::string& PersistentVolume::class_name() const {
  const auto it = annotations.find(kBetaClass);
  return it != annotations.end() ? it->second : storage_class;
}

std::string claim_class_name(const PersistentVolumeClaim& claim,
                             const std::map<std::string, StorageClass>& classes) {
  if (const auto it = claim.annotations.find(kBetaClass); it != claim.annotations.end())
    return it->second;
  if (claim.storage_class) return *claim.storage_class;
  for (const auto& [name, c] : classes)
    if (c.is_default) return name;
  return {};
}

std::string PersistentVolumeClaim::provisioned_volume_name() const {
  if (!uid.empty()) return "pvc-" + uid;
  // FNV-1a over the key, twice with different seeds: stable across runs and
  // machines (std::hash is neither), written in a UUID's shape.
  const std::string k = key();
  const auto fnv = [&](uint64_t h) {
    for (const char c : k) h = (h ^ static_cast<uint8_t>(c)) * 1099511628211ull;
    return h;
  };
  const uint64_t a = fnv(1469598103934665603ull), b = fnv(0x9e3779b97f4a7c15ull);
  // 8-4-4-4-12 hex digits: a's 64 bits, then b's top 16 and low 48.
  std::string out = "pvc-";
  const auto hex = [&out](uint64_t v, int digits) {
    for (int i = digits - 1; i >= 0; --i) out += "0123456789abcdef"[(v >> (4 * i)) & 0xf];
  };
  hex(a >> 32, 8);
  out += '-';
  hex(a >> 16, 4);
  out += '-';
  hex(a, 4);
  out += '-';
  hex(b >> 48, 4);
  out += '-';
  hex(b, 12);
  return out;
}

}  // namespace scoria::model
