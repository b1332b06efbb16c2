// scoria.hpp — header-only C++ convenience layer over scoria.h.
//
// Compiled into each plugin; nothing here crosses the ABI boundary. It offers
// string_view conversions, info getters that return values, resource
// comparisons with Volcano's tolerance, log_line for lazily formatted log
// lines, parse_go_duration (duration.hpp) for Volcano's duration spelling,
// parse_rfc3339 (rfc3339.hpp) for Kubernetes' times,
// parse_quantity and to_resource_units (quantity.hpp) for Kubernetes'
// quantities, create_instance / destroy_instance for the descriptor's
// lifecycle callbacks, guarded to keep exceptions from unwinding into the
// host, and SCORIA_DEFINE_PLUGIN, which writes the exported entry function
// for a descriptor.
//
// It needs C++20 (concepts, std::span). From C, or from C++ older than 20,
// include scoria.h alone: the ABI needs neither this file nor C++20.
#ifndef SCORIA_SCORIA_HPP
#define SCORIA_SCORIA_HPP

#if (defined(_MSVC_LANG) ? _MSVC_LANG : __cplusplus) < 202002L
#error \
    "scoria.hpp needs C++20 (-std=c++20, or CMake's cxx_std_20); from C or older C++, include scoria/scoria.h alone"
#else  // the rest only under C++20, so that the #error above is the one message

#include <scoria/scoria.h>
#include <scoria/duration.hpp>
#include <scoria/label_match.hpp>
#include <scoria/quantity.hpp>
#include <scoria/rfc3339.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <concepts>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

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

namespace detail {

inline void append(std::string& out, std::string_view s) { out.append(s); }

// Integers that log_line writes in decimal. bool and char are left out so
// that neither is ever written as a number by mistake.
template <class T>
concept LogInteger = std::integral<T> && !std::same_as<T, bool> && !std::same_as<T, char>;

// Digits by hand: std::to_string and std::to_chars pull in libstdc++'s digit
// table, a GNU-unique symbol that the loader exports and that keeps the
// plugin from ever unloading.
template <LogInteger Int>
void append(std::string& out, Int n) {
  char digits[24];
  size_t at = sizeof digits;
  const bool negative = n < 0;
  auto rest = static_cast<unsigned long long>(n);
  if (negative) rest = 0ULL - rest;
  do {
    digits[--at] = static_cast<char>('0' + rest % 10);
    rest /= 10;
  } while (rest != 0);
  if (negative) digits[--at] = '-';
  out.append(digits + at, sizeof digits - at);
}

// Floating-point numbers, as printf's %g writes them (6 significant digits).
template <std::floating_point Float>
void append(std::string& out, Float x) {
  char buf[32];
  const int n = std::snprintf(buf, sizeof buf, "%g", static_cast<double>(x));
  if (n > 0)
    out.append(buf, static_cast<size_t>(n) < sizeof buf ? static_cast<size_t>(n) : sizeof buf - 1);
}

// What guarded runs: something callable without arguments that returns
// nothing or a scoria_code (never a value that would be dropped unseen).
template <class F>
concept GuardedBody = std::invocable<F> &&(std::is_void_v<std::invoke_result_t<F> > ||
                                           std::same_as<std::invoke_result_t<F>, scoria_code>);

}  // namespace detail

/// Writes one log line at `level`: the `parts` concatenated, each a string
/// (anything that converts to std::string_view), an integer (in decimal;
/// not bool or char) or a floating-point number (as %g). Nothing is formatted unless the host
/// writes lines of that level, so a disabled verbosity costs one host call. Not for the hooks the
/// host may call concurrently (see Threading in scoria.h).
///
///   scoria::log_line(SCORIA_LOG_V3, "job <", uid, "> has ", count, " tasks");
template <class... Parts>
void log_line(int level, const Parts&... parts) {
  if (!api().log_enabled(host().ctx, level)) return;
  std::string msg;
  (detail::append(msg, parts), ...);
  api().log(host().ctx, level, str(msg));
}

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

/// Count of tasks in any of the statuses in `mask`, of a job's or (ABI 1.9)
/// a sub-job's info.
template <class Info>
requires std::same_as<Info, scoria_job_info> || std::same_as<Info, scoria_sub_job_info> int32_t
count_status(const Info& info, uint32_t mask) {
  int32_t n = 0;
  for (int b = 0; b < 10; ++b)
    if (mask & (1u << b)) n += info.status_count[b];
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

/// A duration argument (SCORIA_ARG_DURATION, Go's spelling); nullopt when
/// the config leaves it out and it has no default.
inline std::optional<std::chrono::nanoseconds> arg_duration(const scoria_args* a,
                                                            std::string_view key) {
  const std::optional<std::string> text = arg_string(a, key);
  return text ? parse_go_duration(*text) : std::nullopt;
}

/// The session's clock in ms since the epoch (session_now_ms, ABI 1.3); on
/// an older host, the wall clock, which is what that host's sessions ran at.
inline int64_t now_ms(const scoria_session* ssn) {
  if (SCORIA_HOST_HAS(&api(), session_now_ms)) return api().session_now_ms(ssn);
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

/// Calls fn(object_json) for every object of `kind` in the session (its
/// Kubernetes kind, e.g. "PodDisruptionBudget"; session_object_json, ABI
/// 1.4), by namespace then name; for none on an older host. The JSON is
/// host-owned and valid for the session.
template <class Fn>
void for_each_object(const scoria_session* ssn, std::string_view kind, Fn&& fn) {
  if (!SCORIA_HOST_HAS(&api(), session_object_json)) return;
  const size_t n = api().session_object_count(ssn, str(kind));
  for (size_t i = 0; i < n; ++i) fn(view(api().session_object_json(ssn, str(kind), i)));
}

/// One role's minimum of a job: PodGroup spec.minTaskMember[role] = min.
struct RoleMinimum {
  std::string_view role;  // as scoria_task_info.role names it; host-owned, valid for the session
  int32_t min = 0;
};

/// The job's per-role minimums (job_min_task_member_*, ABI 1.4), by role in
/// byte order; none when the PodGroup sets none, or on an older host.
inline std::vector<RoleMinimum> min_task_members(const scoria_job* job) {
  std::vector<RoleMinimum> out;
  if (!SCORIA_HOST_HAS(&api(), job_min_task_member_at)) return out;
  const size_t n = api().job_min_task_member_count(job);
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    scoria_str role{};
    int32_t min = 0;
    api().job_min_task_member_at(job, i, &role, &min);
    out.push_back(RoleMinimum{view(role), min});
  }
  return out;
}

// --- sums and lists of jobs (ABI 1.11) ----------------------------------------------

/// What each queue's jobs hold and ask for as they stand, by queue index
/// (session_queue_job_sums); the vectors are host-owned, valid until the
/// next call or the session's close. Throws std::runtime_error when the
/// host refuses (the plugin's guarded body reports it).
inline std::vector<scoria_queue_job_sums> queue_job_sums(scoria_session* ssn) {
  std::vector<scoria_queue_job_sums> out(api().queue_count(ssn));
  for (scoria_queue_job_sums& s : out) s.struct_size = sizeof s;
  if (api().session_queue_job_sums(ssn, out.data(), out.size()) != SCORIA_OK)
    throw std::runtime_error("the host could not sum the queues' jobs");
  return out;
}

/// The nodes' allocatable and used, each summed over every node in node
/// order (session_node_totals; a host before 1.16 is asked node by node,
/// which sums the same). Either may be left out.
struct NodeTotals {
  std::vector<double> allocatable, used;
};
inline NodeTotals node_totals(scoria_session* ssn, bool allocatable = true, bool used = true) {
  const size_t d = api().resource_dim_count(ssn);
  NodeTotals t;
  if (allocatable) t.allocatable.assign(d, 0.0);
  if (used) t.used.assign(d, 0.0);
  double* a = allocatable ? t.allocatable.data() : nullptr;
  double* u = used ? t.used.data() : nullptr;
  if (SCORIA_HOST_HAS(&api(), session_node_totals)) {
    if (api().session_node_totals(ssn, a, u) != SCORIA_OK)
      throw std::runtime_error("the host could not sum the nodes");
    return t;
  }
  const size_t nodes = api().node_count(ssn);
  for (size_t n = 0; n < nodes; ++n) {
    const scoria_node_info ni = info(api().node_at(ssn, n));
    for (size_t k = 0; k < d; ++k) {
      if (a != nullptr) a[k] += ni.allocatable[k];
      if (u != nullptr) u[k] += ni.used[k];
    }
  }
  return t;
}

/// The jobs matching any bit of `which` (SCORIA_JOBS_*), in job order
/// (session_jobs_where); host-owned, valid until the next call or close.
inline std::span<const scoria_job* const> jobs_where(scoria_session* ssn, uint32_t which) {
  size_t count = 0;
  const scoria_job* const* jobs = api().session_jobs_where(ssn, which, &count);
  return {jobs, count};
}

// --- sub-jobs (ABI 1.9) --------------------------------------------------------

/// Whether the host forms sub-jobs (ABI 1.9).
inline bool host_has_sub_jobs() {
  return SCORIA_HOST_HAS(&api(), session_sub_job_hypernode_gradient);
}

inline scoria_sub_job_info info(const scoria_sub_job* s) {
  scoria_sub_job_info i{};
  i.struct_size = sizeof i;
  api().sub_job_info(s, &i);
  return i;
}

/// One entry of the job's spec.subGroupPolicy.
struct SubGroupPolicy {
  std::string_view name;  // host-owned, valid for the session
  int32_t sub_group_size = 1;
  int32_t min_sub_groups = 0;
};

/// The job's spec.subGroupPolicy (job_sub_group_policy_at, ABI 1.9), in
/// spec order; none when it has none, or on an older host.
inline std::vector<SubGroupPolicy> sub_group_policies(const scoria_job* job) {
  std::vector<SubGroupPolicy> out;
  if (!host_has_sub_jobs()) return out;
  const size_t n = api().job_sub_group_policy_count(job);
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    scoria_sub_group_policy_info p{};
    p.struct_size = sizeof p;
    api().job_sub_group_policy_at(job, i, &p);  // in range: cannot fail
    out.push_back(SubGroupPolicy{view(p.name), p.sub_group_size, p.min_sub_groups});
  }
  return out;
}

/// Policies grouped as Volcano counts sub-groups: by name (the sub-job
/// group, scoria_sub_job_info.gid), each group's minSubGroups being the last
/// one given for that name.
struct SubGroupMinimums {
  std::vector<std::string_view> name;  // per group
  std::vector<int32_t> min;            // per group
  std::vector<uint32_t> group_of;      // per policy index
};

inline SubGroupMinimums sub_group_minimums(const std::vector<SubGroupPolicy>& policies) {
  SubGroupMinimums out;
  for (const SubGroupPolicy& p : policies) {
    uint32_t g = 0;
    while (g < out.name.size() && out.name[g] != p.name) ++g;
    if (g == out.name.size()) {
      out.name.push_back(p.name);
      out.min.push_back(0);
    }
    out.min[g] = p.min_sub_groups;
    out.group_of.push_back(g);
  }
  return out;
}

// --- declared arguments (ABI 1.2) -----------------------------------------------
//
// A plugin lists the arguments it takes in a static table and points its
// descriptor at it; the host then refuses a config with any other argument,
// a wrong type or a value out of range, and passes the declared default when
// the config leaves one out, so the getters above return it:
//
//   constexpr scoria_arg_spec kArgs[] = {
//       scoria::with_min(scoria::declare_arg(SCORIA_ARG_INT, "binpack.weight", "1",
//                                            "weight of the binpack score"), 0),
//   };
//   ... .flags = SCORIA_FLAG_DECLARES_ARGS, ..., .args = kArgs, .arg_count = std::size(kArgs)

/// One argument of `type`, named as the config writes it, with its default
/// (as a config would write it; nullptr for none) and a one-line help.
constexpr scoria_arg_spec declare_arg(scoria_arg_type type, const char* name,
                                      const char* default_value, const char* help) noexcept {
  scoria_arg_spec s{};
  s.struct_size = sizeof(scoria_arg_spec);
  s.type = static_cast<uint32_t>(type);
  s.name = name;
  s.default_value = default_value;
  s.help = help;
  return s;
}
/// `s` with an inclusive lower bound.
constexpr scoria_arg_spec with_min(scoria_arg_spec s, double min) noexcept {
  s.bounds |= SCORIA_ARG_HAS_MIN;
  s.min = min;
  return s;
}
/// `s` with an inclusive upper bound.
constexpr scoria_arg_spec with_max(scoria_arg_spec s, double max) noexcept {
  s.bounds |= SCORIA_ARG_HAS_MAX;
  s.max = max;
  return s;
}
/// `s` taking only the values of `allowed`, a NULL-terminated static array.
constexpr scoria_arg_spec with_allowed(scoria_arg_spec s, const char* const* allowed) noexcept {
  s.allowed = allowed;
  return s;
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

// --- statements ---------------------------------------------------------------

/// A statement that is discarded unless it is committed (or merged into
/// another), so that an early return or an exception undoes its operations.
///
///   scoria::Statement stmt(ssn);
///   if (!stmt) return;
///   api().statement_allocate(stmt.get(), task, node);
///   if (job_is_ready) stmt.commit();   // else the destructor discards
class Statement {
 public:
  Statement() = default;
  explicit Statement(scoria_session* ssn) : s_(api().statement_open(ssn)) {}
  Statement(Statement&& other) noexcept : s_(std::exchange(other.s_, nullptr)) {}
  Statement& operator=(Statement&& other) noexcept {
    if (this != &other) {
      discard();
      s_ = std::exchange(other.s_, nullptr);
    }
    return *this;
  }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement() { discard(); }

  explicit operator bool() const { return s_ != nullptr; }
  scoria_statement* get() const { return s_; }
  size_t size() const { return s_ != nullptr ? api().statement_size(s_) : 0; }

  scoria_code commit() {
    return s_ != nullptr ? api().statement_commit(std::exchange(s_, nullptr)) : SCORIA_OK;
  }
  void discard() noexcept {
    if (s_ != nullptr) api().statement_discard(std::exchange(s_, nullptr));
  }
  /// Leaves the operations in effect for the rest of the session without
  /// committing them (Volcano's allocate keeps a pipelined job so); the host
  /// frees the statement at close.
  void leave_open() noexcept { s_ = nullptr; }
  /// Hands every operation to `into` (ABI 1.1: statement_merge); this
  /// statement is gone afterwards.
  scoria_code merge_into(Statement& into) {
    if (s_ == nullptr) return SCORIA_OK;
    if (!into) return SCORIA_INVALID_ARGUMENT;
    scoria_statement* from = std::exchange(s_, nullptr);
    const scoria_code rc = api().statement_merge(into.get(), from);
    if (rc != SCORIA_OK) api().statement_discard(from);
    return rc;
  }

 private:
  scoria_statement* s_ = nullptr;
};

// --- victims ------------------------------------------------------------------

/// Volcano's victim order (BuildVictimsPriorityQueue), for preempt- and
/// reclaim-like actions: true if victim `l` should be evicted before `r`.
/// The task evicted first is the one the session would schedule last: within
/// a job the reverse task order, across queues the victim queue order,
/// otherwise the reverse job order. `V` has members `task`, `job` and
/// `queue` (queue may be NULL).
template <class V>
bool evict_before(const scoria_session* ssn, const scoria_task* preemptor, const V& l, const V& r) {
  if (l.job == r.job) return api().session_task_less(ssn, r.task, l.task) != 0;
  if (l.queue != r.queue && l.queue != nullptr && r.queue != nullptr) {
    return api().session_victim_queue_less(ssn, l.queue, r.queue, preemptor) != 0;
  }
  return api().session_job_less(ssn, r.job, l.job) != 0;
}

/// Sorts victims so that the first to evict comes first (evict_before).
/// A heap sort: bounded even if a plugin's order is inconsistent, which
/// std::sort does not promise.
template <class V>
void sort_victims(const scoria_session* ssn, const scoria_task* preemptor, std::vector<V>& v) {
  const auto first = [&](const V& l, const V& r) { return evict_before(ssn, preemptor, l, r); };
  std::make_heap(v.begin(), v.end(), first);
  std::sort_heap(v.begin(), v.end(), first);
}

// --- lifecycle -----------------------------------------------------------------
//
// An instance is whatever the plugin keeps from on_create to on_destroy: its
// parsed arguments and anything derived from them once. With these two
// templates the descriptor needs no hand-written lifecycle code:
//
//   struct Config {
//     explicit Config(const scoria_args* args) {
//       if (args != nullptr) cache = scoria::arg_bool(args, "cache", cache);
//     }
//     bool cache = true;
//   };
//   ... .on_create = scoria::create_instance<Config>,
//       .on_destroy = scoria::destroy_instance<Config>, ...
//
// The hooks and on_execute then receive the instance as `void*` and cast it
// back to `Config*`.

/// on_create for instances of type T. T is built from the plugin's arguments
/// when it has a constructor taking `const scoria_args*` (which may be NULL),
/// else value-initialized; aggregates always are, since C++20 would otherwise
/// initialize their first member from the pointer. An exception thrown while
/// building it becomes the error message and SCORIA_ERROR.
template <class T>
scoria_code create_instance(const scoria_plugin_ctx* /*ctx*/, const scoria_args* args,
                            void** instance, char* error, size_t error_capacity) noexcept {
  try {
    std::unique_ptr<T> made;
    if constexpr (!std::is_aggregate_v<T> && std::is_constructible_v<T, const scoria_args*>) {
      made = std::make_unique<T>(args);
    } else {
      (void)args;
      made = std::make_unique<T>();
    }
    *instance = made.release();
    return SCORIA_OK;
  } catch (const std::exception& e) {
    write_message(error, error_capacity, e.what());
  } catch (...) {
    write_message(error, error_capacity, "unknown exception");
  }
  return SCORIA_ERROR;
}

/// on_destroy for instances made by create_instance<T>.
template <class T>
void destroy_instance(void* instance) noexcept {
  const std::unique_ptr<T> owned(static_cast<T*>(instance));
}

/// Runs `f` so that nothing unwinds into the host, which is C and cannot
/// take an exception: returns SCORIA_OK when `f` returns normally (or what
/// `f` returns, if it returns a scoria_code), else reports the exception
/// through report_error and returns SCORIA_ERROR. For on_execute and the
/// hooks the host calls on its session thread; report_error is not for the
/// concurrent hooks.
///
///   scoria_code on_execute(void* instance, scoria_session* ssn) {
///     return scoria::guarded([&] { Action(ssn).run(); });
///   }
template <detail::GuardedBody F>
scoria_code guarded(F&& f) noexcept {
  try {
    if constexpr (std::is_void_v<std::invoke_result_t<F> >) {
      std::forward<F>(f)();
      return SCORIA_OK;
    } else {
      return std::forward<F>(f)();
    }
  } catch (const std::exception& e) {
    report_error(e.what());
  } catch (...) {
    report_error("unknown exception");
  }
  return SCORIA_ERROR;
}

}  // namespace scoria

/// Defines the exported entry function returning `descriptor` (a static
/// scoria_descriptor). Refuses a host of another major version.
#define SCORIA_DEFINE_PLUGIN(descriptor)                                               \
  extern "C" SCORIA_EXPORT const scoria_descriptor* scoria_plugin_entry(               \
      uint32_t host_major, uint32_t host_minor, const scoria_host_api* host_api,       \
      const scoria_plugin_ctx* ctx) {                                                  \
    (void)host_minor;                                                                  \
    if (host_major != SCORIA_ABI_VERSION_MAJOR || host_api == nullptr) return nullptr; \
    ::scoria::host().api = host_api;                                                   \
    ::scoria::host().ctx = ctx;                                                        \
    return &(descriptor);                                                              \
  }

#endif  // C++20
#endif  // SCORIA_SCORIA_HPP
