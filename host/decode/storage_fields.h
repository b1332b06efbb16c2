// Fields the storage kinds share: access modes and the volume mode of
// volumes and claims, and sizes in bytes (a volume's capacity, a claim's
// request, what a CSI driver says it can provision).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "decode/field_reader.h"

namespace scoria::decode {

/// spec.accessModes as model::AccessMode bits, refused as the API server
/// refuses them: none, an unknown mode, or ReadWriteOncePod beside another.
uint8_t access_modes(const FieldReader& r, const Node& spec, const FieldPath& spec_path);

/// spec.volumeMode: true for Block, false for Filesystem (the default).
bool block_mode(const FieldReader& r, const Node& spec, const FieldPath& spec_path);

/// A quantity of bytes, 0 or more, rounded up to a whole byte as
/// Kubernetes' Quantity.Value() rounds it.
double bytes(const FieldReader& r, const Node& n, const FieldPath& at);
/// bytes() of `key` in `map`; nullopt when absent.
std::optional<double> bytes_field(const FieldReader& r, const Node& map, std::string_view key,
                                  const FieldPath& parent);

}  // namespace scoria::decode
