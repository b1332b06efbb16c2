// session_tasks_with_features (ABI 1.8) as a plugin calls it through the
// host table: from the object files through the decoder and the cache to a
// session, the tasks whose pods use a feature, in task order, sized by a
// first call with capacity 0 and cut at the capacity given.
#include <scoria/scoria.h>

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "host_table_session.h"

namespace scoria::cache {
namespace {

std::string featured_pod(std::string_view name, std::string_view spec_extra) {
  return "apiVersion: v1\nkind: Pod\nmetadata:\n  namespace: ml\n  name: " + std::string(name) +
         "\n  labels: {app: web}\nspec:\n  containers:\n  - name: main\n    image: app\n" +
         std::string(spec_extra) + "---\n";
}

constexpr std::string_view kAntiAffinity =
    "  affinity:\n    podAntiAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n"
    "      - labelSelector: {matchLabels: {app: web}}\n"
    "        topologyKey: kubernetes.io/hostname\n";
constexpr std::string_view kHostPort = "    ports:\n    - {containerPort: 80, hostPort: 8080}\n";
constexpr std::string_view kSpread =
    "  topologySpreadConstraints:\n  - maxSkew: 1\n    topologyKey: zone\n"
    "    whenUnsatisfiable: DoNotSchedule\n    labelSelector: {matchLabels: {app: web}}\n";

class HostTableTasksWithFeatures : public HostTableSession {
 protected:
  void SetUp() override {
    load(featured_pod("plain-a", "") + featured_pod("anti", kAntiAffinity) +
         featured_pod("plain-b", "") + featured_pod("port", kHostPort) +
         featured_pod("spread", kSpread));
  }

  /// Names of the tasks listed for `features`, after sizing the array.
  std::vector<std::string> names(uint32_t features) const {
    std::vector<const scoria_task*> tasks(
        api_->session_tasks_with_features(handle(), features, nullptr, 0));
    EXPECT_EQ(api_->session_tasks_with_features(handle(), features, tasks.data(), tasks.size()),
              tasks.size());
    std::vector<std::string> out;
    uint32_t last_index = 0;
    for (const scoria_task* t : tasks) {
      scoria_task_info ti{};
      ti.struct_size = sizeof ti;
      EXPECT_EQ(api_->task_info(t, &ti), SCORIA_OK);
      EXPECT_NE(ti.features & features, 0u);
      if (!out.empty()) {
        EXPECT_GT(ti.index, last_index) << "not in task order";
      }
      last_index = ti.index;
      out.emplace_back(ti.name.data, ti.name.len);
    }
    return out;
  }
};

TEST_F(HostTableTasksWithFeatures, ListsTheTasksUsingAFeatureInTaskOrder) {
  ASSERT_TRUE(SCORIA_HOST_HAS(api_, session_tasks_with_features));
  EXPECT_EQ(names(SCORIA_TASK_FEATURE_POD_ANTI_AFFINITY), std::vector<std::string>{"anti"});
  EXPECT_EQ(names(SCORIA_TASK_FEATURE_HOST_PORTS), std::vector<std::string>{"port"});
  EXPECT_EQ(names(SCORIA_TASK_FEATURE_TOPOLOGY_SPREAD), std::vector<std::string>{"spread"});
  EXPECT_EQ(names(SCORIA_TASK_FEATURE_POD_ANTI_AFFINITY | SCORIA_TASK_FEATURE_HOST_PORTS |
                  SCORIA_TASK_FEATURE_TOPOLOGY_SPREAD),
            (std::vector<std::string>{"anti", "port", "spread"}));
  EXPECT_TRUE(names(SCORIA_TASK_FEATURE_POD_AFFINITY).empty());
  EXPECT_TRUE(names(0).empty());
}

TEST_F(HostTableTasksWithFeatures, WritesNoMoreThanTheCapacityAndCountsAll) {
  const uint32_t all = ~0u;
  const scoria_task* one[1] = {nullptr};
  EXPECT_EQ(api_->session_tasks_with_features(handle(), all, one, 1), 3u);
  ASSERT_NE(one[0], nullptr);
  scoria_task_info ti{};
  ti.struct_size = sizeof ti;
  ASSERT_EQ(api_->task_info(one[0], &ti), SCORIA_OK);
  EXPECT_EQ(std::string_view(ti.name.data, ti.name.len), "anti");
  // NULL out: counted, nothing written, whatever the capacity says.
  EXPECT_EQ(api_->session_tasks_with_features(handle(), all, nullptr, 5), 3u);
  EXPECT_EQ(api_->session_tasks_with_features(nullptr, all, one, 1), 0u);
}

}  // namespace
}  // namespace scoria::cache
