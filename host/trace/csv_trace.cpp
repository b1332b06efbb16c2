#include "trace/csv_trace.h"

#include <charconv>
#include <cmath>
#include <map>
#include <optional>

#include "model/error.h"
#include "model/quantity.h"
#include "model/time_annotation.h"
#include "trace/unique_names.h"

namespace scoria::trace {

namespace {

constexpr const char* kColumns[] = {"name",         "queue", "arrival", "duration", "replicas",
                                    "minAvailable", "cpu",   "memory",  "gpu",      "priority"};
constexpr const char* kRequired[] = {"name", "arrival", "duration", "replicas", "cpu", "memory"};

class Row {
 public:
  Row(const CsvRow& row, const std::map<std::string, size_t>& columns, const std::string& file)
      : row_(row), columns_(columns), file_(file) {}

  std::string text(const char* column) const {
    const auto it = columns_.find(column);
    if (it == columns_.end() || it->second >= row_.fields.size()) return {};
    std::string v = row_.fields[it->second];
    const auto first = v.find_first_not_of(" \t");
    const auto last = v.find_last_not_of(" \t");
    return first == std::string::npos ? std::string() : v.substr(first, last - first + 1);
  }

  [[noreturn]] void refuse(const char* column, const std::string& why) const {
    throw InputError(file_ + ": line " + std::to_string(row_.line) + ", column " + column + ": " +
                     why);
  }

  double seconds(const char* column) const {
    const std::string v = text(column);
    double d = 0;
    const auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), d);
    if (v.empty() || ec != std::errc() || p != v.data() + v.size() || !std::isfinite(d))
      refuse(column, "\"" + v + "\" is not a number of seconds (e.g. 3600 or 1.5)");
    if (d < 0) refuse(column, "\"" + v + "\" is negative; give 0 or more seconds");
    if (d > model::kMaxAnnotationSeconds)
      refuse(column, "\"" + v + "\" is more seconds than simulate takes (9e12 at most)");
    return d;
  }

  std::optional<int64_t> whole(const char* column, int64_t min, int64_t max) const {
    const std::string v = text(column);
    if (v.empty()) return std::nullopt;
    int64_t n = 0;
    const auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (ec != std::errc() || p != v.data() + v.size())
      refuse(column, "\"" + v + "\" is not a whole number");
    if (n < min || n > max)
      refuse(column, "\"" + v + "\" is out of range; give " + std::to_string(min) + " to " +
                         std::to_string(max));
    return n;
  }

  std::string quantity(const char* column) const {
    const std::string v = text(column);
    double q = -1;
    try {
      q = model::parse_quantity(v);
    } catch (const std::exception&) {
      refuse(column, "\"" + v + "\" is not a quantity (e.g. 4, 500m, 16Gi)");
    }
    if (q < 0) refuse(column, "\"" + v + "\" is negative");
    return v;
  }

 private:
  const CsvRow& row_;
  const std::map<std::string, size_t>& columns_;
  const std::string& file_;
};

}  // namespace

void read_csv_trace(CsvReader& rows, const std::function<void(TraceJob&&)>& emit) {
  const std::string& file = rows.file();
  const std::optional<CsvRow> header = rows.next();
  if (!header)
    throw InputError(file +
                     ": the trace is empty; its first line names the columns: name,queue,"
                     "arrival,duration,replicas,minAvailable,cpu,memory,gpu,priority");
  std::map<std::string, size_t> columns;
  for (size_t i = 0; i < header->fields.size(); ++i) {
    const std::string& c = header->fields[i];
    bool known = false;
    for (const char* k : kColumns) known = known || c == k;
    if (!known)
      throw InputError(file + ": line 1: unknown column \"" + c +
                       "\"; the columns are name, queue, arrival, duration, replicas, "
                       "minAvailable, cpu, memory, gpu, priority");
    if (!columns.emplace(c, i).second)
      throw InputError(file + ": line 1: column \"" + c + "\" is named twice");
  }
  for (const char* k : kRequired)
    if (!columns.count(k))
      throw InputError(file + ": line 1: the header has no column \"" + std::string(k) +
                       "\" (name, arrival, duration, replicas, cpu and memory are required)");

  UniqueNames names;
  while (const std::optional<CsvRow> read = rows.next()) {
    const Row row(*read, columns, file);
    if (read->fields.size() != header->fields.size())
      throw InputError(file + ": line " + std::to_string(read->line) + ": " +
                       std::to_string(read->fields.size()) + " fields, the header has " +
                       std::to_string(header->fields.size()));
    TraceJob j;
    const std::string raw = row.text("name");
    if (raw.empty()) row.refuse("name", "the job needs a name");
    j.name = label_of(raw);
    if (!names.insert(j.name))
      row.refuse("name", "\"" + raw + "\" names a job already in the trace (as " + j.name +
                             "); names must be unique");
    const std::string queue = row.text("queue");
    j.queue = queue.empty() ? "default" : label_of(queue);
    j.arrival_s = row.seconds("arrival");
    TraceTask t;
    t.duration_s = row.seconds("duration");
    const auto replicas = row.whole("replicas", 1, 100000);
    if (!replicas) row.refuse("replicas", "the job needs a number of pods, 1 or more");
    t.replicas = static_cast<int32_t>(*replicas);
    j.min_available =
        static_cast<int32_t>(row.whole("minAvailable", 1, *replicas).value_or(*replicas));
    t.cpu = row.quantity("cpu");
    t.memory = row.quantity("memory");
    t.gpus = row.whole("gpu", 0, 1024).value_or(0);
    if (const auto p = row.whole("priority", -2147483648LL, 1000000000LL))
      j.priority = static_cast<int32_t>(*p);
    j.tasks.push_back(std::move(t));
    emit(std::move(j));
  }
}

}  // namespace scoria::trace
