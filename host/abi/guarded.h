// Every function of the service table is called from plugin code, which may
// be C or Rust and cannot take a C++ exception: one unwinding through it is
// undefined behaviour. So each table entry is its adapter wrapped in
// Guarded, which catches whatever the host throws, logs it once per
// function, and answers that function's failure value.
#pragma once

#include <scoria/scoria.h>

#include <atomic>
#include <exception>
#include <string_view>
#include <type_traits>

namespace scoria::abi {

/// What a guarded function answers when the host threw: SCORIA_ERROR for a
/// code, else the value-initialised result (null, 0: "no", "none"), which
/// fails closed for the table's questions (ready? allocatable? a node?).
template <class R>
R failure_value() {
  if constexpr (std::is_same_v<R, scoria_code>)
    return SCORIA_ERROR;
  else
    return R{};
}

/// Logs, the first time `logged` is set, that the host function named in
/// `signature` (a __PRETTY_FUNCTION__ naming it as F) threw `why`.
void report_host_throw(std::atomic<bool>& logged, std::string_view signature,
                       const char* why) noexcept;

/// `F` with nothing thrown out of it: on a throw, `fallback` (void: nothing).
template <auto F, class R, class... A>
R call_guarded(R fallback, A... args) noexcept {
  static std::atomic<bool> logged{false};
  try {
    return F(args...);
  } catch (const std::exception& e) {
    report_host_throw(logged, __PRETTY_FUNCTION__, e.what());
  } catch (...) {
    report_host_throw(logged, __PRETTY_FUNCTION__, "an exception that is not a std::exception");
  }
  return fallback;
}

template <auto F, class... A>
void call_guarded_void(A... args) noexcept {
  static std::atomic<bool> logged{false};
  try {
    F(args...);
  } catch (const std::exception& e) {
    report_host_throw(logged, __PRETTY_FUNCTION__, e.what());
  } catch (...) {
    report_host_throw(logged, __PRETTY_FUNCTION__, "an exception that is not a std::exception");
  }
}

/// The table's entry for the adapter `F`: Guarded<&f>::call.
template <auto F>
struct Guarded;
template <class R, class... A, R (*F)(A...)>
struct Guarded<F> {
  static R call(A... args) noexcept {
    if constexpr (std::is_void_v<R>)
      call_guarded_void<F, A...>(args...);
    else
      return call_guarded<F, R, A...>(failure_value<R>(), args...);
  }
};

/// As Guarded, for a question whose closed answer is `OnThrow` (a queue
/// that cannot be judged is overused).
template <auto F, auto OnThrow>
struct GuardedAnswer;
template <class R, class... A, R (*F)(A...), auto OnThrow>
struct GuardedAnswer<F, OnThrow> {
  static R call(A... args) noexcept {
    return call_guarded<F, R, A...>(static_cast<R>(OnThrow), args...);
  }
};

}  // namespace scoria::abi
