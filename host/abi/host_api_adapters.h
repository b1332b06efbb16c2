// What every adapter of the service table needs: strings across the C ABI,
// a handle back to the host's own record, and filling an info struct only as
// far as the plugin's struct_size reaches.
#pragma once

#include <scoria/scoria.h>

#include <cstddef>
#include <string_view>
#include <type_traits>

#include "session/session.h"

namespace scoria::abi::adapters {

inline scoria_str S(std::string_view s) { return scoria_str{s.data(), s.size()}; }
inline std::string_view V(scoria_str s) { return s.len ? std::string_view(s.data, s.len) : ""; }
inline session::Session* mut(const scoria_session* s) {
  return const_cast<session::Session*>(reinterpret_cast<const session::Session*>(s));
}
inline session::Task* mut(const scoria_task* t) { return const_cast<session::Task*>(t); }
inline session::Node* mut(const scoria_node* n) { return const_cast<session::Node*>(n); }

}  // namespace scoria::abi::adapters

/// Sets out->field only if the caller's struct reaches it (struct_size).
#define SCORIA_FILL(out, field, value)                                                   \
  if ((out)->struct_size >=                                                              \
      offsetof(std::remove_reference_t<decltype(*(out))>, field) + sizeof((out)->field)) \
  (out)->field = (value)
