// scoria.hpp — header-only C++ convenience layer over scoria.h.
//
// Compiled into each plugin; nothing here crosses the ABI boundary. It offers
// string_view conversions, info getters that return values, resource
// comparisons with Volcano's tolerance, and SCORIA_DEFINE_PLUGIN, which
// writes the exported entry function for a descriptor.
#ifndef SCORIA_SCORIA_HPP
#define SCORIA_SCORIA_HPP

#include <scoria/scoria.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace scoria {

/// The host table and plugin context, set by the entry function.
struct Host {
  const scoria_host_api* api = nullptr;
  const scoria_plugin_ctx* ctx = nullptr;
};

/// One per plugin shared object (the ABI hands the table to the entry).
inline Host& host() {
  static Host h;
  return h;
}
inline const scoria_host_api& api() { return *host().api; }

inline scoria_str str(std::string_view s) { return scoria_str{s.data(), s.size()}; }
inline std::string_view view(scoria_str s) {
  return s.len == 0 ? std::string_view{} : std::string_view{s.data, s.len};
}

inline void log(int level, std::string_view msg) {
  if (api().log_enabled(host().ctx, level)) api().log(host().ctx, level, str(msg));
}
inline void report_error(std::string_view msg) { api().report_error(host().ctx, str(msg)); }

/// Writes `msg` into a host-owned buffer, truncating and NUL-terminating.
inline void write_message(char* buf, size_t cap, std::string_view msg) {
  if (buf == nullptr || cap == 0) return;
  size_t n = msg.size() < cap - 1 ? msg.size() : cap - 1;
  std::memcpy(buf, msg.data(), n);
  buf[n] = '\0';
}

inline scoria_task_info info(const scoria_task* t) {
  scoria_task_info i{};
  i.struct_size = sizeof i;
  api().task_info(t, &i);
  return i;
}
inline scoria_job_info info(const scoria_job* j) {
  scoria_job_info i{};
  i.struct_size = sizeof i;
  api().job_info(j, &i);
  return i;
}
inline scoria_queue_info info(const scoria_queue* q) {
  scoria_queue_info i{};
  i.struct_size = sizeof i;
  api().queue_info(q, &i);
  return i;
}
inline scoria_node_info info(const scoria_node* n) {
  scoria_node_info i{};
  i.struct_size = sizeof i;
  api().node_info(n, &i);
  return i;
}

/// Count of tasks in any of the statuses in `mask`.
inline int32_t count_status(const scoria_job_info& j, uint32_t mask) {
  int32_t n = 0;
  for (int b = 0; b < 10; ++b)
    if (mask & (1u << b)) n += j.status_count[b];
  return n;
}

// Volcano's status groups.
inline constexpr uint32_t kAllocatedStatuses =
    SCORIA_TASK_BOUND | SCORIA_TASK_BINDING | SCORIA_TASK_RUNNING | SCORIA_TASK_ALLOCATED;
inline constexpr uint32_t kReadyStatuses = kAllocatedStatuses | SCORIA_TASK_SUCCEEDED;

/// Argument getters with defaults.
inline int64_t arg_int(const scoria_args* a, std::string_view key, int64_t def) {
  int64_t v = def;
  return api().args_get_int(a, str(key), &v) == SCORIA_OK ? v : def;
}
inline double arg_float(const scoria_args* a, std::string_view key, double def) {
  double v = def;
  return api().args_get_float(a, str(key), &v) == SCORIA_OK ? v : def;
}
inline bool arg_bool(const scoria_args* a, std::string_view key, bool def) {
  int v = def;
  return api().args_get_bool(a, str(key), &v) == SCORIA_OK ? v != 0 : def;
}
inline std::optional<std::string> arg_string(const scoria_args* a, std::string_view key) {
  scoria_str v{};
  if (api().args_get_string(a, str(key), &v) != SCORIA_OK) return std::nullopt;
  return std::string(view(v));
}

/// A read-only resource vector of the session's dimension count.
using ResourceView = std::span<const double>;

inline size_t dims(const scoria_session* ssn) { return api().resource_dim_count(ssn); }

/// l <= r in every dimension, with Volcano's tolerance.
inline bool less_equal(ResourceView l, ResourceView r) {
  for (size_t i = 0; i < l.size(); ++i)
    if (!(l[i] < r[i] || std::fabs(l[i] - r[i]) < SCORIA_RESOURCE_EPSILON)) return false;
  return true;
}

/// True when nothing but the pod count is asked for (Volcano's IsEmpty).
inline bool is_empty(ResourceView r) {
  for (size_t i = 0; i < r.size(); ++i)
    if (i != SCORIA_DIM_PODS && r[i] >= SCORIA_RESOURCE_EPSILON) return false;
  return true;
}

}  // namespace scoria

/// Defines the exported entry function returning `descriptor` (a static
/// scoria_descriptor). Refuses a host of another major version.
#define SCORIA_DEFINE_PLUGIN(descriptor)                                              \
  extern "C" SCORIA_EXPORT const scoria_descriptor* scoria_plugin_entry(              \
      uint32_t host_major, uint32_t host_minor, const scoria_host_api* host_api,      \
      const scoria_plugin_ctx* ctx) {                                                 \
    (void)host_minor;                                                                 \
    if (host_major != SCORIA_ABI_VERSION_MAJOR || host_api == nullptr) return nullptr; \
    ::scoria::host().api = host_api;                                                  \
    ::scoria::host().ctx = ctx;                                                       \
    return &(descriptor);                                                             \
  }

#endif  // SCORIA_SCORIA_HPP
