// Arithmetic over resource lists by name, as objects are read (a pod's
// containers summed, init containers' peak taken).
#pragma once

#include "model/objects.h"

namespace scoria::model {

/// to += from, by resource name.
void add_into(ResourceList& to, const ResourceList& from);
/// to = max(to, from), by resource name.
void max_into(ResourceList& to, const ResourceList& from);

}  // namespace scoria::model
