// Dynamic Resource Allocation objects as YAML text, for the tests of their
// decoders: a DeviceClass, a ResourceSlice, a ResourceClaim, each from the
// part a test varies.
#pragma once

#include <string>
#include <string_view>

namespace scoria::test_support::devices {

inline std::string device_class(std::string_view spec) {
  return "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: gpu.example.com}\n"
         "spec:\n" +
         std::string(spec);
}

inline constexpr std::string_view kSliceHead =
    "  driver: gpu.example.com\n  pool: {name: n1, generation: 1, resourceSliceCount: 1}\n";

inline std::string slice(std::string_view spec) {
  return "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: n1-gpu}\nspec:\n" +
         std::string(spec);
}

/// A slice on node n1 with `devices` (items of spec.devices).
inline std::string slice_of(std::string_view devices) {
  return slice(std::string(kSliceHead) + "  nodeName: n1\n  devices:\n" + std::string(devices));
}

inline std::string claim(std::string_view devices, std::string_view rest = "") {
  return "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {namespace: ml, name: c}\n"
         "spec:\n  devices:\n" +
         std::string(devices) + std::string(rest);
}

inline constexpr std::string_view kOneGpu =
    "    requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com}}]\n";

}  // namespace scoria::test_support::devices
