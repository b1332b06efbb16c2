// scoria trace import: a job trace (Scoria's CSV, or the Alibaba GPU
// cluster trace) as the objects `scoria simulate` reads, with their time
// annotations.
#include <fstream>
#include <iostream>
#include <optional>
#include <string>

#include "cli/commands.h"
#include "model/error.h"
#include "trace/alibaba_trace.h"
#include "trace/csv_trace.h"
#include "trace/job_trace.h"

namespace scoria::cli {

namespace {

constexpr const char* kTraceUsage =
    "usage: scoria trace import [--format csv|alibaba] [--job-table FILE] [--queue-by-user]\n"
    "                           [--namespace NS] FILE\n"
    "  Prints the objects of the jobs in FILE (\"-\" for stdin) as multi-document YAML for\n"
    "  `scoria simulate`: a PodGroup per job, its pods, the Queues and PriorityClasses\n"
    "  they name, each with scoria.io/arrival and scoria.io/duration. Add nodes (for\n"
    "  example from gencluster.py) and simulate both files.\n"
    "  --format csv (default): Scoria's trace, one row per job under a header naming\n"
    "    the columns name,queue,arrival,duration,replicas,minAvailable,cpu,memory,gpu,\n"
    "    priority (arrival and duration in seconds; see the README).\n"
    "  --format alibaba: FILE is cluster-trace-gpu-v2020's pai_task_table.csv; jobs\n"
    "    become gangs of their tasks' instances. --job-table pai_job_table.csv and\n"
    "    --queue-by-user put each job in a queue named after its user.\n"
    "  --namespace NS (default \"trace\"): where the pods and PodGroups go.\n";

/// `path` opened for reading (standard input for "-"), kept in `file`.
std::istream& open(const std::string& path, std::ifstream& file) {
  if (path == "-") return std::cin;
  file.open(path, std::ios::binary);
  if (!file) throw InputError(path + ": cannot read the file; check the path");
  return file;
}

int import(std::span<const std::string_view> args) {
  std::string format = "csv", job_table, ns = "trace", file;
  bool queue_by_user = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string_view a = args[i];
    const auto value = [&]() {
      if (i + 1 >= args.size())
        throw InputError("trace import: " + std::string(a) + " needs a value");
      return std::string(args[++i]);
    };
    if (a == "--format") {
      format = value();
      if (format != "csv" && format != "alibaba")
        throw InputError("trace import: --format is csv or alibaba, not " + format);
    } else if (a == "--job-table") {
      job_table = value();
    } else if (a == "--queue-by-user") {
      queue_by_user = true;
    } else if (a == "--namespace") {
      ns = trace::label_of(value());
    } else if (a == "-h" || a == "--help") {
      std::cout << kTraceUsage;
      return 0;
    } else if (a.size() > 1 && a[0] == '-') {
      throw InputError("trace import: unknown option " + std::string(a) +
                       "; see `scoria trace --help`");
    } else if (file.empty()) {
      file = std::string(a);
    } else {
      throw InputError("trace import: one trace FILE, not several (" + file + ", " +
                       std::string(a) + ")");
    }
  }
  if (file.empty()) throw InputError("trace import: name the trace FILE (or - for stdin)");
  if (format == "csv" && (!job_table.empty() || queue_by_user))
    throw InputError("trace import: --job-table and --queue-by-user are for --format alibaba");
  // Read a row at a time and written through a temporary file: nothing
  // holds the trace's text or its pods.
  trace::TraceWriter writer(ns);
  std::ifstream trace_file;
  trace::CsvReader rows(open(file, trace_file), file);
  if (format == "csv") {
    trace::read_csv_trace(rows, [&](trace::TraceJob&& j) { writer.add(j); });
  } else {
    std::ifstream job_file;
    std::optional<trace::CsvReader> job_rows;
    if (!job_table.empty()) job_rows.emplace(open(job_table, job_file), job_table);
    const trace::AlibabaImport imported =
        trace::read_alibaba_trace(rows, job_rows ? &*job_rows : nullptr, queue_by_user);
    if (imported.skipped_rows > 0)
      std::cerr << "scoria: " << file << ": skipped " << imported.skipped_rows
                << " rows that are not Terminated or lack times or plans\n";
    for (const trace::TraceJob& j : imported.jobs) writer.add(j);
  }
  writer.finish(std::cout);
  return 0;
}

}  // namespace

int trace_command(std::span<const std::string_view> args) {
  try {
    if (args.empty() || args[0] == "-h" || args[0] == "--help") {
      std::cout << kTraceUsage;
      return args.empty() ? 2 : 0;
    }
    if (args[0] == "import") return import(args.subspan(1));
    throw InputError("trace: unknown subcommand \"" + std::string(args[0]) +
                     "\"; see `scoria trace --help`");
  } catch (const InputError& e) {
    std::cerr << "scoria: " << e.what() << "\n";
    return 2;
  }
}

}  // namespace scoria::cli
