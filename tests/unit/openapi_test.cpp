// The OpenAPI documents made from the field schema: every kind served has
// its definition with its group-version-kind, fields typed, lists with the
// list type and keys server-side apply merges them by, and the references
// kubectl explain follows.
#include <gtest/gtest.h>

#include "api/openapi.h"

namespace scoria::api {
namespace {

using nlohmann::json;

TEST(OpenApi, V3DocumentsHoldEveryKindOfTheirGroupVersion) {
  const json index = *openapi_document("/openapi/v3");
  EXPECT_EQ(index["paths"]["api/v1"]["serverRelativeURL"], "/openapi/v3/api/v1");
  ASSERT_TRUE(index["paths"].contains("apis/scheduling.volcano.sh/v1beta1"));

  const json v1 = *openapi_document("/openapi/v3/api/v1");
  const json& schemas = v1["components"]["schemas"];
  const json& pod = schemas["io.k8s.api.core.v1.Pod"];
  EXPECT_EQ(pod["x-kubernetes-group-version-kind"],
            R"([{"group": "", "kind": "Pod", "version": "v1"}])"_json);
  EXPECT_EQ(pod["properties"]["spec"],
            R"({"allOf": [{"$ref": "#/components/schemas/io.k8s.api.core.v1.PodSpec"}]})"_json);
  const json& spec = schemas["io.k8s.api.core.v1.PodSpec"];
  EXPECT_EQ(spec["required"], R"(["containers"])"_json);
  EXPECT_EQ(spec["properties"]["tolerations"]["x-kubernetes-list-type"], "atomic");
  const json& container = schemas["io.k8s.api.core.v1.Container"]["properties"];
  EXPECT_EQ(container["ports"]["x-kubernetes-list-map-keys"],
            R"(["containerPort", "protocol"])"_json);
  EXPECT_EQ(container["image"], R"({"type": "string"})"_json);
  const json& limits = schemas["io.k8s.api.core.v1.ResourceRequirements"]["properties"]["limits"];
  EXPECT_EQ(limits["additionalProperties"],
            R"({"allOf": [{"$ref":
                "#/components/schemas/io.k8s.apimachinery.pkg.api.resource.Quantity"}]})"_json);
  EXPECT_TRUE(schemas.contains("io.k8s.api.core.v1.Node"));
  EXPECT_FALSE(schemas.contains("sh.volcano.scheduling.v1beta1.Queue"));
  // The PATCH kubectl reads for server-side field validation.
  const json& patch = v1["paths"]["/api/v1/namespaces/{namespace}/pods/{name}"]["patch"];
  EXPECT_EQ(patch["parameters"][0]["name"], "fieldValidation");

  const json volcano = *openapi_document("/openapi/v3/apis/scheduling.volcano.sh/v1beta1");
  const json& queue = volcano["components"]["schemas"]["sh.volcano.scheduling.v1beta1.Queue"];
  EXPECT_EQ(queue["properties"]["spec"]["properties"]["weight"]["type"], "integer");
  EXPECT_FALSE(openapi_document("/openapi/v3/apis/nothing.example/v1"));
}

TEST(OpenApi, V2IsOneDocumentWithPlainReferences) {
  const json v2 = *openapi_document("/openapi/v2");
  EXPECT_EQ(v2["swagger"], "2.0");
  const json& defs = v2["definitions"];
  EXPECT_EQ(defs["io.k8s.api.core.v1.PodSpec"]["properties"]["containers"]["items"],
            R"({"$ref": "#/definitions/io.k8s.api.core.v1.Container"})"_json);
  EXPECT_EQ(defs["io.k8s.apimachinery.pkg.util.intstr.IntOrString"],
            R"({"type": "string", "format": "int-or-string"})"_json);
  EXPECT_TRUE(defs.contains("sh.volcano.batch.v1alpha1.Job"));
  EXPECT_TRUE(accepts_openapi_json("application/json, */*"));
  EXPECT_FALSE(accepts_openapi_json("application/com.github.proto-openapi.spec.v2@v1.0+protobuf"));
}

}  // namespace
}  // namespace scoria::api
