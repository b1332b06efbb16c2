#include "model/storage.h"

#include <cstdio>

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
  const auto fnv = [&](uint64_t h) {
    for (const char c : key()) h = (h ^ static_cast<uint8_t>(c)) * 1099511628211ull;
    return h;
  };
  const uint64_t a = fnv(1469598103934665603ull), b = fnv(0x9e3779b97f4a7c15ull);
  char text[40];
  std::snprintf(text, sizeof text, "%08x-%04x-%04x-%04x-%012llx", static_cast<unsigned>(a >> 32),
                static_cast<unsigned>((a >> 16) & 0xffff), static_cast<unsigned>(a & 0xffff),
                static_cast<unsigned>(b >> 48),
                static_cast<unsigned long long>(b & 0xffffffffffffull));
  return std::string("pvc-") + text;
}

}  // namespace scoria::model
