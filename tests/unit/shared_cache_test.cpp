// The service's cache is changed by the loop only while no session holds
// it, and lent to one session at a time (serve/shared_cache.h).
#include "serve/shared_cache.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <thread>
#include <utility>

namespace scoria::serve {
namespace {

model::ClusterObjects one_node() {
  model::ClusterObjects objects;
  model::Node n;
  n.name = "node-a";
  n.allocatable = {{"cpu", 4000}, {"memory", 8.0 * (1 << 30)}, {"pods", 110}};
  objects.nodes.push_back(std::move(n));
  return objects;
}

TEST(SharedCache, ChangesOnlyWhileNoSessionHoldsIt) {
  SharedCache shared;
  shared.change().reset(one_node());
  {
    SharedCache::Loan loan = shared.lend();
    EXPECT_TRUE(shared.lent());
    EXPECT_THROW(shared.change(), std::logic_error);
    EXPECT_THROW(shared.lend(), std::logic_error);
    // The loan reads and keeps the snapshot; the loop still reads dims.
    EXPECT_EQ(loan.refresh_snapshot(0, true).nodes.size(), 1u);
    EXPECT_EQ(loan.read().dims().size(), 3u);
    EXPECT_EQ(shared.dims().size(), 3u);
  }
  EXPECT_FALSE(shared.lent());
  EXPECT_NO_THROW(shared.change());
}

TEST(SharedCache, ALoanMovedToTheSessionThreadIsReturnedOnce) {
  SharedCache shared;
  shared.change().reset(one_node());
  std::optional<SharedCache::Loan> held(shared.lend());
  std::thread session([&] { EXPECT_EQ(held->refresh_snapshot(0, true).nodes.size(), 1u); });
  session.join();
  SharedCache::Loan moved(std::move(*held));
  held.reset();  // the moved-from loan returns nothing
  EXPECT_TRUE(shared.lent());
  EXPECT_THROW(shared.change(), std::logic_error);
  { SharedCache::Loan done(std::move(moved)); }
  EXPECT_FALSE(shared.lent());
  EXPECT_NO_THROW(shared.lend());
}

}  // namespace
}  // namespace scoria::serve
