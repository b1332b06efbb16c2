#include "serve/shared_cache.h"

#include <stdexcept>

namespace scoria::serve {

cache::ClusterCache& SharedCache::change() {
  if (lent()) throw std::logic_error("the cluster cache is changed while a session holds it");
  return cache_;
}

SharedCache::Loan SharedCache::lend() {
  if (lent_.exchange(true, std::memory_order_acq_rel))
    throw std::logic_error("the cluster cache is lent to two sessions at once");
  return Loan(*this);
}

}  // namespace scoria::serve
