#include "trace/job_trace.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <set>
#include <system_error>

#include "model/error.h"

namespace scoria::trace {

namespace {

std::string seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", s);
  std::string out = buf;
  while (out.back() == '0') out.pop_back();
  if (out.back() == '.') out.pop_back();
  return out;
}

std::string priority_class(int32_t value) {
  return value < 0 ? "trace-priority-minus-" + std::to_string(-static_cast<int64_t>(value))
                   : "trace-priority-" + std::to_string(value);
}

// One job's PodGroup and pods, each document preceded by a separator.
std::string job_yaml(const TraceJob& j, const std::string& ns) {
  const std::string pc =
      j.priority ? ", priorityClassName: " + priority_class(*j.priority) : std::string();
  std::string out =
      "---\napiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\nmetadata: {name: " + j.name +
      ", namespace: " + ns + ", annotations: {scoria.io/arrival: \"" + seconds(j.arrival_s) +
      "\"}}\nspec: {minMember: " + std::to_string(j.min_available) + ", queue: " + j.queue + pc +
      "}\n";
  for (const auto& t : j.tasks) {
    const std::string prefix = t.role.empty() ? j.name : j.name + "-" + t.role;
    std::string requests = "cpu: \"" + t.cpu + "\", memory: \"" + t.memory + "\"";
    if (t.gpus > 0) requests += ", nvidia.com/gpu: \"" + std::to_string(t.gpus) + "\"";
    std::string annotations = "scheduling.k8s.io/group-name: " + j.name +
                              ", scoria.io/arrival: \"" + seconds(j.arrival_s) +
                              "\", scoria.io/duration: \"" + seconds(t.duration_s) + "\"";
    if (!t.role.empty()) annotations += ", volcano.sh/task-spec: " + t.role;
    for (int32_t i = 0; i < t.replicas; ++i) {
      out += "---\napiVersion: v1\nkind: Pod\nmetadata: {name: " + prefix + "-" +
             std::to_string(i) + ", namespace: " + ns + ", annotations: {" + annotations +
             "}}\nspec:\n  schedulerName: volcano\n";
      if (j.priority) out += "  priorityClassName: " + priority_class(*j.priority) + "\n";
      out += "  containers: [{name: main, image: trace, resources: {requests: {" + requests +
             (t.gpus > 0 ? "}, limits: {nvidia.com/gpu: \"" + std::to_string(t.gpus) + "\"}}}]\n"
                         : "}}}]\n");
    }
  }
  return out;
}

// A file of its own in the temporary directory (TMPDIR, else /tmp; tmpfile
// would take /tmp alone), gone once closed; null with errno if none.
std::FILE* temporary_file() {
  std::error_code ec;
  const std::filesystem::path dir = std::filesystem::temp_directory_path(ec);
  std::string path = (ec ? std::filesystem::path("/tmp") : dir) / "scoria-trace-XXXXXX";
  const int fd = ::mkstemp(path.data());
  if (fd < 0) return nullptr;
  ::unlink(path.c_str());
  std::FILE* file = ::fdopen(fd, "w+");
  if (file == nullptr) ::close(fd);
  return file;
}

}  // namespace

std::string label_of(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (ok) {
      out += c;
    } else if (!out.empty() && out.back() != '-') {
      out += '-';
    }
    if (out.size() == 50) break;
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out.empty() ? "job" : out;
}

TraceWriter::TraceWriter(std::string ns)
    : ns_(std::move(ns)), jobs_(temporary_file(), &std::fclose) {
  if (!jobs_)
    throw InputError(std::string("trace import: cannot make a temporary file for the jobs (") +
                     std::strerror(errno) + "); check TMPDIR");
}

void TraceWriter::add(const TraceJob& job) {
  if (job.queue != "default") queues_.insert(job.queue);
  if (job.priority) priorities_.insert(*job.priority);
  const std::string text = job_yaml(job, ns_);
  if (std::fwrite(text.data(), 1, text.size(), jobs_.get()) != text.size())
    throw InputError(std::string("trace import: cannot write the temporary file of the jobs (") +
                     std::strerror(errno) + "); check the space in TMPDIR");
  any_jobs_ = true;
}

void TraceWriter::finish(std::ostream& out) {
  // Documents are separated, not ended, by "---"; the jobs' file has one
  // before each.
  std::string head;
  for (const auto& q : queues_)
    head += (head.empty() ? "" : "---\n") +
            ("apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: {name: " + q +
             "}\nspec: {weight: 1, reclaimable: true}\n");
  for (const int32_t p : priorities_)
    head += (head.empty() ? "" : "---\n") +
            ("apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: " +
             priority_class(p) + "}\nvalue: " + std::to_string(p) + "\n");
  out << head;
  if (any_jobs_) {
    std::rewind(jobs_.get());
    std::vector<char> buffer(1 << 16);
    bool first = head.empty();
    for (size_t n; (n = std::fread(buffer.data(), 1, buffer.size(), jobs_.get())) > 0;) {
      const size_t skip = first ? std::min<size_t>(n, 4) : 0;  // no separator before the first
      first = false;
      out.write(buffer.data() + skip, static_cast<std::streamsize>(n - skip));
    }
  }
  if (!head.empty() || any_jobs_) out << "\n";
}

}  // namespace scoria::trace
