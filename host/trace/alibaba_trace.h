// The public Alibaba GPU cluster trace (cluster-trace-gpu-v2020): its
// pai_task_table rows (job_name, task_name, inst_num, status, start_time,
// end_time, plan_cpu, plan_mem, plan_gpu, gpu_type), with or without the
// header line, become jobs: one per job_name, a role per task_name with
// inst_num pods, a gang of all of them (PAI runs a job's instances
// together), arriving at the task's start_time (seconds from the trace's
// earliest) and running until its end_time. plan_cpu is in percent of a
// core, plan_mem in GB, plan_gpu in percent of a card (rounded up to whole
// cards: a pod asks for nvidia.com/gpu).
//
// pai_job_table (job_name, inst_id, user, status, start_time, end_time),
// when given, names each job's user, which becomes its queue with
// --queue-by-user. Rows without times or plans, or not Terminated, are
// skipped and counted: the trace has many.
#pragma once

#include <cstddef>
#include <vector>

#include "trace/csv_rows.h"
#include "trace/job_trace.h"

namespace scoria::trace {

struct AlibabaImport {
  std::vector<TraceJob> jobs;
  size_t skipped_rows = 0;
};

/// Reads the tables a row at a time (`job_table` may be null); it keeps each
/// job's tasks, as numbers, until the end, where jobs are ordered by name and
/// timed from the earliest. Throws InputError naming the file and line of a
/// row with the wrong number of columns, a number that does not parse, or
/// times beyond what simulate takes.
AlibabaImport read_alibaba_trace(CsvReader& task_table, CsvReader* job_table, bool queue_by_user);

}  // namespace scoria::trace
