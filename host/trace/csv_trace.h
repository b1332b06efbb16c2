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

#include <functional>

#include "trace/csv_rows.h"
#include "trace/job_trace.h"

namespace scoria::trace {

/// Reads a CSV trace a row at a time, handing each job to `emit` as it is
/// read: what it keeps is the job names seen, to refuse a repeated one.
/// Throws InputError naming the file, the line and the column of the first
/// field that does not parse, or is out of range.
void read_csv_trace(CsvReader& rows, const std::function<void(TraceJob&&)>& emit);

}  // namespace scoria::trace
