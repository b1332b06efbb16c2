// The equivalence class of a pending pod (SDK 1.7, on_cache_policy): what
// of the pod a plugin may read when it declares its answers cacheable. Pods
// with the same key differ only in identity.
#pragma once

#include <string>

#include "model/objects.h"

namespace scoria::cache {

/// The pod's JSON without what makes it this pod rather than its sibling:
/// metadata name, generateName, uid, resourceVersion, creationTimestamp,
/// ownerReferences and managedFields; its PodGroup annotation; a Volcano
/// Job's task index; spec nodeName, hostname and subdomain; status. Written
/// as a code of the JSON in document order (not JSON: only compared).
/// Empty when the pod has no JSON, or JSON that is not an object (it is
/// then in no class).
std::string equivalence_key(const model::Pod& pod);

/// The key of the wider class of pods alike but for the names of the
/// claims their persistentVolumeClaim volumes name (claimName left out as
/// well): within it a session shares answers only between pods whose claims
/// mean the same (session/volume_binding.h). Never equal to an
/// equivalence_key. Empty as equivalence_key is.
std::string equivalence_key_without_claim_names(const model::Pod& pod);

}  // namespace scoria::cache
