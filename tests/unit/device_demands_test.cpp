// session_task_device_demands (ABI 1.14): what a task's ResourceClaims ask
// of each DeviceClass, as Volcano's capacity counts it for queue quota.
#include <scoria/scoria.h>

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "host_table_session.h"

namespace scoria::cache {
namespace {

const std::string kCluster = R"(apiVersion: v1
kind: Node
metadata: {name: n0}
status: {allocatable: {cpu: '16', memory: 16Gi, pods: '110'}}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: nic}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {namespace: ml, name: shared}
spec:
  devices:
    requests:
    - name: two
      exactly: {deviceClassName: gpu, count: 2, capacity: {requests: {memory: 8Gi}}}
    - name: one
      exactly: {deviceClassName: gpu}
    - name: either
      firstAvailable:
      - {name: a, deviceClassName: gpu}
      - {name: b, deviceClassName: nic}
    - name: every
      exactly: {deviceClassName: nic, allocationMode: All}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {namespace: ml, name: tpl}
spec:
  spec:
    devices:
      requests:
      - name: nic
        exactly: {deviceClassName: nic}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  namespace: ml
  name: pod-a-made
  ownerReferences:
  - {apiVersion: v1, kind: Pod, name: pod-a, uid: 00000000-0000-4000-8000-00000000000a, controller: true}
spec:
  devices:
    requests:
    - name: nic
      exactly: {deviceClassName: nic}
---
apiVersion: v1
kind: Pod
metadata: {namespace: ml, name: pod-a, uid: 00000000-0000-4000-8000-00000000000a}
spec:
  containers: [{name: c, image: x}]
  resourceClaims:
  - {name: first, resourceClaimName: shared}
  - {name: again, resourceClaimName: shared}
  - {name: made, resourceClaimTemplateName: tpl}
---
apiVersion: v1
kind: Pod
metadata: {namespace: ml, name: pod-b, uid: 00000000-0000-4000-8000-00000000000b}
spec:
  containers: [{name: c, image: x}]
  resourceClaims:
  - {name: later, resourceClaimTemplateName: tpl}
---
apiVersion: v1
kind: Pod
metadata: {namespace: ml, name: plain}
spec:
  containers: [{name: c, image: x}]
)";

using Entry = std::tuple<std::string, std::string, std::string, double>;

class DeviceDemands : public HostTableSession {
 protected:
  void SetUp() override { load(kCluster); }

  const scoria_task* task(std::string_view name) const {
    for (size_t j = 0; j < api_->job_count(handle()); ++j) {
      const scoria_job* job = api_->job_at(handle(), j);
      for (size_t t = 0; t < api_->job_task_count(job); ++t) {
        const scoria_task* tk = api_->job_task_at(job, t);
        scoria_task_info ti{};
        ti.struct_size = sizeof ti;
        api_->task_info(tk, &ti);
        if (std::string_view(ti.name.data, ti.name.len) == name) return tk;
      }
    }
    ADD_FAILURE() << "no task " << name;
    return nullptr;
  }
  uint32_t features(std::string_view name) const {
    scoria_task_info ti{};
    ti.struct_size = sizeof ti;
    api_->task_info(task(name), &ti);
    return ti.features;
  }
  std::vector<Entry> demands(std::string_view name) const {
    size_t count = 99;
    const scoria_device_demand* d = api_->session_task_device_demands(handle(), task(name), &count);
    EXPECT_NE(d, nullptr);
    std::vector<Entry> out;
    for (size_t i = 0; i < count; ++i) {
      EXPECT_EQ(d[i].struct_size, sizeof(scoria_device_demand));
      out.emplace_back(std::string(d[i].claim.data, d[i].claim.len),
                       std::string(d[i].device_class.data, d[i].device_class.len),
                       std::string(d[i].dimension.data, d[i].dimension.len), d[i].amount);
    }
    return out;
  }
};

TEST_F(DeviceDemands, CountExactRequestsByClaimAndClassOnce) {
  // shared's two gpu requests add up (2 + 1 devices; 8Gi on each of the
  // first two); firstAvailable and All are not counted; the claim named
  // twice counts once; the template's claim is the one made for the pod.
  const std::vector<Entry> want = {
      {"ml/shared", "gpu", "", 3},
      {"ml/shared", "gpu", "memory", 2 * 8.0 * 1024 * 1024 * 1024},
      {"ml/pod-a-made", "nic", "", 1},
  };
  EXPECT_EQ(demands("pod-a"), want);
  // Asked again: the same array, made once.
  size_t n1 = 0, n2 = 0;
  EXPECT_EQ(api_->session_task_device_demands(handle(), task("pod-a"), &n1),
            api_->session_task_device_demands(handle(), task("pod-a"), &n2));
  EXPECT_EQ(n1, n2);
}

TEST_F(DeviceDemands, AClaimNotMadeYetAndAPodWithoutClaimsAskNothing) {
  EXPECT_TRUE(demands("pod-b").empty());  // its template's claim does not exist yet
  EXPECT_TRUE(demands("plain").empty());
  EXPECT_NE(features("pod-a") & SCORIA_TASK_FEATURE_DEVICE_CLAIMS, 0u);
  EXPECT_NE(features("pod-b") & SCORIA_TASK_FEATURE_DEVICE_CLAIMS, 0u);
  EXPECT_EQ(features("plain") & SCORIA_TASK_FEATURE_DEVICE_CLAIMS, 0u);
  const size_t listed =
      api_->session_tasks_with_features(handle(), SCORIA_TASK_FEATURE_DEVICE_CLAIMS, nullptr, 0);
  EXPECT_EQ(listed, 2u);
}

TEST_F(DeviceDemands, NullArgumentsGiveNothing) {
  size_t count = 7;
  EXPECT_NE(api_->session_task_device_demands(nullptr, nullptr, &count), nullptr);
  EXPECT_EQ(count, 0u);
}

}  // namespace
}  // namespace scoria::cache
