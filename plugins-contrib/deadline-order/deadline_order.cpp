// deadline-order: earliest deadline first. A job's deadline is the PodGroup
// annotation `scoria.dev/deadline` (the argument `annotation` names another),
// as seconds since the epoch or as RFC 3339 UTC ("2026-11-23T18:00:00Z").
// Jobs with a deadline go before jobs without; two without one are left to
// the next plugin. Written with the SDK's header-only C++ layer.
#include <scoria/scoria.h>
#include <scoria/scoria.hpp>

#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>

namespace {

using scoria::api;

constexpr const char* kDefaultAnnotation = "scoria.dev/deadline";

// The one argument, declared (ABI 1.2) so that the host refuses any other
// and passes the default when the config leaves it out.
constexpr scoria_arg_spec kArgs[] = {
    scoria::declare_arg(SCORIA_ARG_STRING, "annotation", kDefaultAnnotation,
                        "the PodGroup annotation holding a job's deadline (seconds since the "
                        "epoch, or RFC 3339 UTC)"),
};

struct Config {
  explicit Config(const scoria_args* args) {
    if (args == nullptr) return;
    if (auto a = scoria::arg_string(args, "annotation")) annotation = *a;
  }
  std::string annotation = kDefaultAnnotation;
};

bool digits(std::string_view s, size_t at, size_t n, int& out) {
  out = 0;
  if (at + n > s.size()) return false;
  for (size_t i = at; i < at + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    out = out * 10 + (s[i] - '0');
  }
  return true;
}

// Days since 1970-01-01 of a civil date (proleptic Gregorian).
int64_t days_from_civil(int y, int m, int d) {
  y -= m <= 2 ? 1 : 0;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

// Seconds since the epoch, from "1700000000" or "2026-11-23T18:00:00Z".
std::optional<int64_t> parse_deadline(std::string_view s) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, se = 0;
  if (s.size() == 20 && s[4] == '-' && s[7] == '-' && s[10] == 'T' && s[13] == ':' &&
      s[16] == ':' && s[19] == 'Z' && digits(s, 0, 4, y) && digits(s, 5, 2, mo) &&
      digits(s, 8, 2, d) && digits(s, 11, 2, h) && digits(s, 14, 2, mi) && digits(s, 17, 2, se))
    return days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se;
  if (s.empty() || s.size() > 18) return std::nullopt;
  int64_t n = 0;
  for (const char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + (c - '0');
  }
  return n;
}

std::optional<int64_t> deadline_of(const Config& c, const scoria_job* job) {
  scoria_str value{};
  if (api().job_annotation(job, scoria::str(c.annotation), &value) != SCORIA_OK)
    return std::nullopt;
  return parse_deadline(scoria::view(value));
}

int job_order(void* user_data, const scoria_job* l, const scoria_job* r) {
  const auto& c = *static_cast<const Config*>(user_data);
  const auto ld = deadline_of(c, l);
  const auto rd = deadline_of(c, r);
  if (ld && rd) return *ld < *rd ? -1 : (*ld > *rd ? 1 : 0);
  if (ld) return -1;
  if (rd) return 1;
  return 0;
}

scoria_code on_session_open(void* instance, scoria_session* /*ssn*/, scoria_hooks* hooks) {
  hooks->user_data = instance;
  hooks->on_job_order = job_order;
  return SCORIA_OK;
}

const scoria_descriptor kDescriptor = {
    .struct_size = sizeof(scoria_descriptor),
    .abi_major = SCORIA_ABI_VERSION_MAJOR,
    .abi_minor = SCORIA_ABI_VERSION_MINOR,
    .name = "deadline-order",
    .kind = SCORIA_KIND_PLUGIN,
    .flags = SCORIA_FLAG_DECLARES_ARGS,
    .version = "1.0.0",
    .description = "Earliest deadline first, from a PodGroup annotation",
    .on_create = scoria::create_instance<Config>,
    .on_destroy = scoria::destroy_instance<Config>,
    .on_session_open = on_session_open,
    .on_session_close = nullptr,
    .on_execute = nullptr,
    .args = kArgs,
    .arg_count = std::size(kArgs),
};

}  // namespace

SCORIA_DEFINE_PLUGIN(kDescriptor)
