// The time annotations simulate reads (scoria.io/arrival on pods, PodGroups
// and nodes, scoria.io/duration on pods) hold seconds, in text.
#pragma once

namespace scoria::model {

/// The most seconds an annotation may hold: simulate counts in int64
/// milliseconds, which overflow past about 290 million years. What writes
/// the annotations (trace import) refuses more, as simulate does.
inline constexpr double kMaxAnnotationSeconds = 9e12;

}  // namespace scoria::model
