// Durations in Go's spelling, as Kubernetes' and Volcano's flags and plugin
// arguments write them. The parser is the SDK's (scoria/duration.hpp), so a
// declared duration argument the host accepts is one every plugin can read.
#pragma once

#include <scoria/duration.hpp>

namespace scoria::model {

using scoria::parse_go_duration;

}  // namespace scoria::model
