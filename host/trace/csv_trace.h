// Scoria's CSV job trace: a header line, then one row per job.
//
//   name,queue,arrival,duration,replicas,minAvailable,cpu,memory,gpu,priority
//   train-1,research,0,3600,8,8,4,16Gi,1,100
//
//   name          the job (made a DNS-1123 label); unique
//   queue         its Queue (empty: default)
//   arrival       seconds from the start of the trace, >= 0
//   duration      seconds each pod runs once bound, >= 0
//   replicas      pods, >= 1
//   minAvailable  the gang's minimum, 1..replicas (empty: replicas)
//   cpu, memory   each pod's requests, Kubernetes quantities
//   gpu           whole nvidia.com/gpu per pod, >= 0 (empty: 0)
//   priority      an integer (empty: none); a PriorityClass per value
//
// Columns may come in any order; priority and gpu may be left out.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "trace/job_trace.h"

namespace scoria::trace {

/// The jobs of a CSV trace. Throws InputError naming `file`, the line and
/// the column of the first field that does not parse, or is out of range.
std::vector<TraceJob> read_csv_trace(std::string_view text, const std::string& file);

}  // namespace scoria::trace
