// A pod's spec.resourceClaims (Dynamic Resource Allocation) as the loader
// reads them: each entry names a ResourceClaim or a ResourceClaimTemplate,
// refused as the API server refuses a malformed one, naming the field.
#include <gtest/gtest.h>

#include <string>

#include "objects_from_text.h"
#include "source/object_loader.h"

namespace scoria::source {
namespace {

using test_support::parse;
using test_support::parse_error;

std::string pod(std::string_view claims) {
  return "apiVersion: v1\nkind: Pod\nmetadata: {namespace: ml, name: train-0}\nspec:\n"
         "  containers: [{name: c, image: busybox, resources: {claims: [{name: gpu}]}}]\n"
         "  resourceClaims:\n" +
         std::string(claims);
}

TEST(DeviceClaimRefs, ByNameOrFromATemplate) {
  const auto objects = parse(pod("  - {name: gpu, resourceClaimName: shared-gpu}\n"
                                 "  - {name: nic, resourceClaimTemplateName: rdma}\n"));
  ASSERT_EQ(objects.pods.size(), 1u);
  const auto& refs = objects.pods[0].device_claims;
  ASSERT_EQ(refs.size(), 2u);
  EXPECT_EQ(refs[0].name, "gpu");
  EXPECT_EQ(refs[0].claim, "shared-gpu");
  EXPECT_EQ(refs[0].template_, "");
  EXPECT_EQ(refs[1].name, "nic");
  EXPECT_EQ(refs[1].claim, "");
  EXPECT_EQ(refs[1].template_, "rdma");
  const std::string plain =
      "apiVersion: v1\nkind: Pod\nmetadata: {namespace: ml, name: p}\nspec:\n"
      "  containers: [{name: c, image: busybox}]\n";
  EXPECT_TRUE(parse(plain).pods.at(0).device_claims.empty());
}

TEST(DeviceClaimRefs, MalformedEntriesAreRefusedNamingTheField) {
  const std::string at = "cluster.yaml: document 1 (Pod ml/train-0): field spec.resourceClaims";
  EXPECT_EQ(parse_error(pod("  - {resourceClaimName: shared-gpu}\n")),
            at + "[0].name: is missing; name the entry (containers use it in resources.claims)");
  EXPECT_EQ(parse_error(pod("  - {name: gpu}\n")),
            at + "[0]: must name exactly one of resourceClaimName and "
                 "resourceClaimTemplateName");
  EXPECT_EQ(parse_error(pod("  - {name: gpu, resourceClaimName: a, "
                            "resourceClaimTemplateName: b}\n")),
            at + "[0]: must name exactly one of resourceClaimName and "
                 "resourceClaimTemplateName");
  EXPECT_EQ(parse_error(pod("  - {name: gpu, resourceClaimName: a}\n"
                            "  - {name: gpu, resourceClaimName: b}\n")),
            at + "[1].name: \"gpu\" is used by an earlier entry; names must differ");
}

}  // namespace
}  // namespace scoria::source
