#include "trace/alibaba_trace.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <unordered_map>

#include "model/error.h"
#include "model/time_annotation.h"

namespace scoria::trace {

namespace {

// pai_task_table's columns, in the release's order.
enum TaskColumn : size_t {
  kJobName,
  kTaskName,
  kInstNum,
  kStatus,
  kStart,
  kEnd,
  kPlanCpu,
  kPlanMem,
  kPlanGpu,
  kGpuType,
  kTaskColumns
};
// pai_job_table's.
enum JobColumn : size_t { kJJobName, kJInstId, kJUser, kJStatus, kJStart, kJEnd, kJobColumns };

// A number of the trace; nullopt for an empty field (the trace leaves
// many). Throws on text that is not a number.
std::optional<double> number(const CsvRow& row, size_t column, const char* name,
                             const std::string& file) {
  const std::string& v = row.fields[column];
  if (v.empty()) return std::nullopt;
  double d = 0;
  const auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), d);
  if (ec != std::errc() || p != v.data() + v.size() || std::isnan(d))
    throw InputError(file + ": line " + std::to_string(row.line) + ", column " + name + ": \"" + v +
                     "\" is not a number");
  if (!std::isfinite(d)) return std::nullopt;
  return d;
}

std::string millicores(double percent_of_core) {
  return std::to_string(std::max<int64_t>(1, std::llround(percent_of_core * 10))) + "m";
}

std::string megabytes(double gigabytes) {
  return std::to_string(std::max<int64_t>(1, std::llround(gigabytes * 1000))) + "M";
}

void check_width(const CsvRow& row, size_t want, const std::string& file, const char* table) {
  if (row.fields.size() != want)
    throw InputError(file + ": line " + std::to_string(row.line) + ": " +
                     std::to_string(row.fields.size()) + " columns; " + table + " has " +
                     std::to_string(want));
}

}  // namespace

AlibabaImport read_alibaba_trace(CsvReader& task_table, CsvReader* job_table, bool queue_by_user) {
  std::unordered_map<std::string, std::string> users;
  AlibabaImport out;
  if (job_table != nullptr) {
    const std::string& job_file = job_table->file();
    while (const std::optional<CsvRow> row = job_table->next()) {
      if (row->line == 1 && !row->fields.empty() && row->fields[0] == "job_name") continue;
      check_width(*row, kJobColumns, job_file, "pai_job_table");
      // Only users become queues: without --queue-by-user the table is
      // checked and nothing kept.
      if (queue_by_user) users.emplace(row->fields[kJJobName], row->fields[kJUser]);
    }
  }
  const std::string& task_file = task_table.file();
  struct Job {
    double start = std::numeric_limits<double>::infinity();
    std::vector<TraceTask> tasks;
  };
  std::map<std::string, Job> jobs;  // by job_name, for a stable order
  while (const std::optional<CsvRow> read = task_table.next()) {
    const CsvRow& row = *read;
    if (row.line == 1 && !row.fields.empty() && row.fields[0] == "job_name") continue;
    check_width(row, kTaskColumns, task_file, "pai_task_table");
    const auto inst = number(row, kInstNum, "inst_num", task_file);
    const auto start = number(row, kStart, "start_time", task_file);
    const auto end = number(row, kEnd, "end_time", task_file);
    const auto cpu = number(row, kPlanCpu, "plan_cpu", task_file);
    const auto mem = number(row, kPlanMem, "plan_mem", task_file);
    const auto gpu = number(row, kPlanGpu, "plan_gpu", task_file);
    if (row.fields[kStatus] != "Terminated" || !inst || *inst < 1 || !start || !end ||
        *end < *start || !cpu || !mem || *start <= 0) {
      ++out.skipped_rows;
      continue;
    }
    if (*end > model::kMaxAnnotationSeconds)
      throw InputError(task_file + ": line " + std::to_string(row.line) + ", column end_time: " +
                       row.fields[kEnd] + " is more seconds than simulate takes (9e12 at most)");
    TraceTask t;
    t.role = label_of(row.fields[kTaskName]);
    t.replicas = static_cast<int32_t>(std::min(*inst, 100000.0));
    t.cpu = millicores(*cpu);
    t.memory = megabytes(*mem);
    t.gpus = gpu ? static_cast<int64_t>(std::ceil(*gpu / 100.0 - 1e-9)) : 0;
    t.duration_s = *end - *start;
    Job& j = jobs[row.fields[kJobName]];
    j.start = std::min(j.start, *start);
    j.tasks.push_back(std::move(t));
  }
  double origin = std::numeric_limits<double>::infinity();
  for (const auto& [name, j] : jobs) origin = std::min(origin, j.start);
  out.jobs.reserve(jobs.size());
  for (auto& [name, j] : jobs) {
    TraceJob tj;
    tj.name = label_of(name);
    tj.arrival_s = j.start - origin;
    int64_t pods = 0;
    for (const auto& t : j.tasks) pods += t.replicas;
    tj.min_available = static_cast<int32_t>(std::min<int64_t>(pods, 1000000));
    if (queue_by_user)
      if (const auto u = users.find(name); u != users.end() && !u->second.empty())
        tj.queue = label_of(u->second);
    tj.tasks = std::move(j.tasks);
    // Two tasks of a job with the same name (the trace repeats some) stay
    // apart.
    std::map<std::string, int> seen;
    for (auto& t : tj.tasks)
      if (const int n = seen[t.role]++; n > 0) t.role += "-" + std::to_string(n);
    out.jobs.push_back(std::move(tj));
  }
  // Hashes can collide once cut to a label's length; names must be unique.
  std::map<std::string, int> names;
  for (auto& j : out.jobs)
    if (const int n = names[j.name]++; n > 0) j.name += "-" + std::to_string(n);
  return out;
}

}  // namespace scoria::trace
