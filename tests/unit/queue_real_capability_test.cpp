// session_queue_set_real_capability (ABI 1.15): a plugin hands the host a
// queue's real capability, which the session's outcome carries to the
// metrics; what is not a capability is refused and records nothing.
#include <scoria/scoria.h>

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "host_table_session.h"

namespace scoria::cache {
namespace {

const std::string kRealCapabilityCluster =
    "apiVersion: v1\nkind: Node\nmetadata: {name: n0}\n"
    "status: {allocatable: {cpu: '4', memory: 8Gi, pods: '110'}}\n---\n"
    "apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: {name: q1}\n"
    "spec: {weight: 1}\n---\n"
    "apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: {name: q2}\n"
    "spec: {weight: 1}\n";

class QueueRealCapability : public HostTableSession {
 protected:
  void SetUp() override { load(kRealCapabilityCluster); }

  scoria_session* session() { return reinterpret_cast<scoria_session*>(ssn_.get()); }
  const scoria_queue* queue(std::string_view name) {
    return api_->queue_find(handle(), {name.data(), name.size()});
  }
  std::vector<double> values(double fill) {
    return std::vector<double>(api_->resource_dim_count(handle()), fill);
  }
  const cycle::Outcome::QueueStatus& status(const cycle::Outcome& out, std::string_view name) {
    for (const auto& q : out.queues)
      if (q.name == name) return q;
    ADD_FAILURE() << "no queue " << name;
    return out.queues.front();
  }
};

TEST_F(QueueRealCapability, TheOutcomeCarriesWhatThePluginSaid) {
  std::vector<double> real = values(std::numeric_limits<double>::infinity());
  real[SCORIA_DIM_CPU] = 3000;
  ASSERT_EQ(api_->session_queue_set_real_capability(session(), queue("q1"), real.data()),
            SCORIA_OK);
  // The host copied it: what the plugin does with its vector afterwards
  // does not matter.
  real[SCORIA_DIM_CPU] = 1;
  const cycle::Outcome out = ssn_->close();
  const auto& q1 = status(out, "q1");
  ASSERT_EQ(q1.real_capability.size(), real.size());
  EXPECT_EQ(q1.real_capability[SCORIA_DIM_CPU], 3000);
  EXPECT_TRUE(std::isinf(q1.real_capability[SCORIA_DIM_MEMORY]));
  // A queue no plugin reported has none.
  EXPECT_TRUE(status(out, "q2").real_capability.empty());
}

TEST_F(QueueRealCapability, TheLastCallForAQueueWins) {
  std::vector<double> real = values(1000);
  ASSERT_EQ(api_->session_queue_set_real_capability(session(), queue("q1"), real.data()),
            SCORIA_OK);
  real[SCORIA_DIM_CPU] = 2000;
  ASSERT_EQ(api_->session_queue_set_real_capability(session(), queue("q1"), real.data()),
            SCORIA_OK);
  EXPECT_EQ(status(ssn_->close(), "q1").real_capability[SCORIA_DIM_CPU], 2000);
}

TEST_F(QueueRealCapability, WhatIsNoCapabilityIsRefusedAndRecordsNothing) {
  std::vector<double> negative = values(1000);
  negative[SCORIA_DIM_MEMORY] = -1;
  std::vector<double> nan = values(1000);
  nan[SCORIA_DIM_CPU] = std::numeric_limits<double>::quiet_NaN();
  const std::vector<double> good = values(1000);
  EXPECT_EQ(api_->session_queue_set_real_capability(session(), queue("q1"), negative.data()),
            SCORIA_INVALID_ARGUMENT);
  EXPECT_EQ(api_->session_queue_set_real_capability(session(), queue("q1"), nan.data()),
            SCORIA_INVALID_ARGUMENT);
  EXPECT_EQ(api_->session_queue_set_real_capability(session(), queue("q1"), nullptr),
            SCORIA_INVALID_ARGUMENT);
  EXPECT_EQ(api_->session_queue_set_real_capability(session(), nullptr, good.data()),
            SCORIA_INVALID_ARGUMENT);
  EXPECT_EQ(api_->session_queue_set_real_capability(nullptr, queue("q1"), good.data()),
            SCORIA_INVALID_ARGUMENT);
  // A queue of another session.
  session::Session other(snap_, config_, nullptr);
  const auto* other_handle = reinterpret_cast<scoria_session*>(&other);
  const scoria_queue* foreign = api_->queue_find(other_handle, {"q1", 2});
  ASSERT_NE(foreign, nullptr);
  EXPECT_EQ(api_->session_queue_set_real_capability(session(), foreign, good.data()),
            SCORIA_INVALID_ARGUMENT);
  EXPECT_TRUE(status(ssn_->close(), "q1").real_capability.empty());
}

}  // namespace
}  // namespace scoria::cache
