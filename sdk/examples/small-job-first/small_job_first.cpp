// small-job-first: a job order. The job asking for less goes first: less cpu
// in all its tasks (`by = "cpu"`), or fewer tasks (`by = "tasks"`). Equal
// jobs are left to the next plugin, and in the end to creation time.
#include <scoria/scoria.hpp>

#include <iterator>
#include <string>

namespace {

constexpr const char* kMeasures[] = {"cpu", "tasks", nullptr};

constexpr scoria_arg_spec kArgs[] = {
    scoria::with_allowed(scoria::declare_arg(SCORIA_ARG_STRING, "by", "cpu",
                                             "what makes a job small: its cpu or its task count"),
                         kMeasures),
};

struct SmallJobFirst {
  explicit SmallJobFirst(const scoria_args* args)
      : by_tasks(scoria::arg_string(args, "by").value_or("cpu") == "tasks") {}
  bool by_tasks;
};

double size_of(const SmallJobFirst& p, const scoria_job* job) {
  const scoria_job_info info = scoria::info(job);
  return p.by_tasks ? info.task_count : info.total_request[SCORIA_DIM_CPU];
}

// <0: l goes first, >0: r goes first, 0: no opinion.
int job_order(void* self, const scoria_job* l, const scoria_job* r) {
  const auto& p = *static_cast<const SmallJobFirst*>(self);
  const double ls = size_of(p, l), rs = size_of(p, r);
  return ls < rs ? -1 : (ls > rs ? 1 : 0);
}

scoria_code on_session_open(void* self, scoria_session* /*ssn*/, scoria_hooks* hooks) {
  hooks->user_data = self;
  hooks->on_job_order = job_order;
  return SCORIA_OK;
}

const scoria_descriptor kDescriptor = {
    .struct_size = sizeof(scoria_descriptor),
    .abi_major = SCORIA_ABI_VERSION_MAJOR,
    .abi_minor = SCORIA_ABI_VERSION_MINOR,
    .name = "small-job-first",
    .kind = SCORIA_KIND_PLUGIN,
    .flags = SCORIA_FLAG_DECLARES_ARGS,
    .version = "1.0.0",
    .description = "Orders jobs by their size, smallest first (by cpu or task count)",
    .on_create = scoria::create_instance<SmallJobFirst>,
    .on_destroy = scoria::destroy_instance<SmallJobFirst>,
    .on_session_open = on_session_open,
    .on_session_close = nullptr,
    .on_execute = nullptr,
    .args = kArgs,
    .arg_count = std::size(kArgs),
};

}  // namespace

SCORIA_DEFINE_PLUGIN(kDescriptor)
