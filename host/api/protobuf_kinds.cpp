// Field numbers and JSON names follow the Kubernetes API's v1.32 messages;
// Emit follows each Go field's json tag (omitempty or not) and whether it
// is a pointer. Fields a table leaves out are skipped when read.
#include "api/protobuf_kinds.h"

#include <algorithm>
#include <array>

namespace scoria::api::protobuf {

namespace {

constexpr Type S = Type::kString;
constexpr Type B = Type::kBool;
constexpr Type I32 = Type::kInt32;
constexpr Type I64 = Type::kInt64;
constexpr Type M = Type::kMessage;
constexpr Type Q = Type::kQuantity;
constexpr Type IOS = Type::kIntOrString;
constexpr Type T = Type::kTime;
constexpr Label One = Label::kSingle;
constexpr Label Many = Label::kRepeated;
constexpr Label Map = Label::kMap;
constexpr Emit Omit = Emit::kOmitEmpty;
constexpr Emit Always = Emit::kAlways;
constexpr Emit Ptr = Emit::kPresent;

// meta.k8s.io/v1

constexpr std::array kOwnerReferenceFields{
    Field{1, "kind", S, One, Always},    Field{3, "name", S, One, Always},
    Field{4, "uid", S, One, Always},     Field{5, "apiVersion", S, One, Always},
    Field{6, "controller", B, One, Ptr}, Field{7, "blockOwnerDeletion", B, One, Ptr},
};
constexpr Message kOwnerReference{"OwnerReference", kOwnerReferenceFields};

// ManagedFields (17) are left out: the API keeps none.
constexpr std::array kObjectMetaFields{
    Field{1, "name", S},
    Field{2, "generateName", S},
    Field{3, "namespace", S},
    Field{4, "selfLink", S},
    Field{5, "uid", S},
    Field{6, "resourceVersion", S},
    Field{7, "generation", I64},
    Field{8, "creationTimestamp", T, One, Always},
    Field{9, "deletionTimestamp", T, One, Ptr},
    Field{10, "deletionGracePeriodSeconds", I64, One, Ptr},
    Field{11, "labels", S, Map},
    Field{12, "annotations", S, Map},
    Field{13, "ownerReferences", M, Many, Omit, &kOwnerReference},
    Field{14, "finalizers", S, Many},
};
constexpr Message kObjectMeta{"ObjectMeta", kObjectMetaFields};

// LabelSelectorRequirement and FieldSelectorRequirement share a shape.
constexpr std::array kSelectorRequirementFields{
    Field{1, "key", S, One, Always},
    Field{2, "operator", S, One, Always},
    Field{3, "values", S, Many},
};
constexpr Message kSelectorRequirement{"SelectorRequirement", kSelectorRequirementFields};

constexpr std::array kLabelSelectorFields{
    Field{1, "matchLabels", S, Map},
    Field{2, "matchExpressions", M, Many, Omit, &kSelectorRequirement},
};
constexpr Message kLabelSelector{"LabelSelector", kLabelSelectorFields};

constexpr std::array kPreconditionsFields{
    Field{1, "uid", S, One, Ptr},
    Field{2, "resourceVersion", S, One, Ptr},
};
constexpr Message kPreconditions{"Preconditions", kPreconditionsFields};

constexpr std::array kDeleteOptionsFields{
    Field{1, "gracePeriodSeconds", I64, One, Ptr},
    Field{2, "preconditions", M, One, Ptr, &kPreconditions},
    Field{3, "orphanDependents", B, One, Ptr},
    Field{4, "propagationPolicy", S, One, Ptr},
    Field{5, "dryRun", S, Many},
    Field{6, "ignoreStoreReadErrorWithClusterBreakingPotential", B, One, Ptr},
};
constexpr Message kDeleteOptions{"DeleteOptions", kDeleteOptionsFields};

constexpr std::array kConditionFields{
    Field{1, "type", S, One, Always},    Field{2, "status", S, One, Always},
    Field{3, "observedGeneration", I64}, Field{4, "lastTransitionTime", T, One, Always},
    Field{5, "reason", S, One, Always},  Field{6, "message", S, One, Always},
};
constexpr Message kCondition{"Condition", kConditionFields};

// v1 Namespace

constexpr std::array kNamespaceSpecFields{Field{1, "finalizers", S, Many}};
constexpr Message kNamespaceSpec{"NamespaceSpec", kNamespaceSpecFields};

constexpr std::array kNamespaceConditionFields{
    Field{1, "type", S, One, Always},
    Field{2, "status", S, One, Always},
    Field{4, "lastTransitionTime", T, One, Always},
    Field{5, "reason", S},
    Field{6, "message", S},
};
constexpr Message kNamespaceCondition{"NamespaceCondition", kNamespaceConditionFields};

constexpr std::array kNamespaceStatusFields{
    Field{1, "phase", S},
    Field{2, "conditions", M, Many, Omit, &kNamespaceCondition},
};
constexpr Message kNamespaceStatus{"NamespaceStatus", kNamespaceStatusFields};

constexpr std::array kNamespaceFields{
    Field{1, "metadata", M, One, Always, &kObjectMeta},
    Field{2, "spec", M, One, Always, &kNamespaceSpec},
    Field{3, "status", M, One, Always, &kNamespaceStatus},
};
constexpr Message kNamespace{"Namespace", kNamespaceFields};

// scheduling.k8s.io/v1 PriorityClass

constexpr std::array kPriorityClassFields{
    Field{1, "metadata", M, One, Always, &kObjectMeta},
    Field{2, "value", I32, One, Always},
    Field{3, "globalDefault", B},
    Field{4, "description", S},
    Field{5, "preemptionPolicy", S, One, Ptr},
};
constexpr Message kPriorityClass{"PriorityClass", kPriorityClassFields};

// v1 ResourceQuota

constexpr std::array kScopedRequirementFields{
    Field{1, "scopeName", S, One, Always},
    Field{2, "operator", S, One, Always},
    Field{3, "values", S, Many},
};
constexpr Message kScopedRequirement{"ScopedResourceSelectorRequirement", kScopedRequirementFields};
constexpr std::array kScopeSelectorFields{
    Field{1, "matchExpressions", M, Many, Omit, &kScopedRequirement},
};
constexpr Message kScopeSelector{"ScopeSelector", kScopeSelectorFields};

constexpr std::array kResourceQuotaSpecFields{
    Field{1, "hard", Q, Map},
    Field{2, "scopes", S, Many},
    Field{3, "scopeSelector", M, One, Ptr, &kScopeSelector},
};
constexpr Message kResourceQuotaSpec{"ResourceQuotaSpec", kResourceQuotaSpecFields};

constexpr std::array kResourceQuotaStatusFields{
    Field{1, "hard", Q, Map},
    Field{2, "used", Q, Map},
};
constexpr Message kResourceQuotaStatus{"ResourceQuotaStatus", kResourceQuotaStatusFields};

constexpr std::array kResourceQuotaFields{
    Field{1, "metadata", M, One, Always, &kObjectMeta},
    Field{2, "spec", M, One, Always, &kResourceQuotaSpec},
    Field{3, "status", M, One, Always, &kResourceQuotaStatus},
};
constexpr Message kResourceQuota{"ResourceQuota", kResourceQuotaFields};

// policy/v1 PodDisruptionBudget and Eviction

constexpr std::array kDisruptionBudgetSpecFields{
    Field{1, "minAvailable", IOS, One, Ptr},
    Field{2, "selector", M, One, Ptr, &kLabelSelector},
    Field{3, "maxUnavailable", IOS, One, Ptr},
    Field{4, "unhealthyPodEvictionPolicy", S, One, Ptr},
};
constexpr Message kDisruptionBudgetSpec{"PodDisruptionBudgetSpec", kDisruptionBudgetSpecFields};

constexpr std::array kDisruptionBudgetStatusFields{
    Field{1, "observedGeneration", I64},
    Field{2, "disruptedPods", T, Map},
    Field{3, "disruptionsAllowed", I32, One, Always},
    Field{4, "currentHealthy", I32, One, Always},
    Field{5, "desiredHealthy", I32, One, Always},
    Field{6, "expectedPods", I32, One, Always},
    Field{7, "conditions", M, Many, Omit, &kCondition},
};
constexpr Message kDisruptionBudgetStatus{"PodDisruptionBudgetStatus",
                                          kDisruptionBudgetStatusFields};

constexpr std::array kDisruptionBudgetFields{
    Field{1, "metadata", M, One, Always, &kObjectMeta},
    Field{2, "spec", M, One, Always, &kDisruptionBudgetSpec},
    Field{3, "status", M, One, Always, &kDisruptionBudgetStatus},
};
constexpr Message kDisruptionBudget{"PodDisruptionBudget", kDisruptionBudgetFields};

constexpr std::array kEvictionFields{
    Field{1, "metadata", M, One, Always, &kObjectMeta},
    Field{2, "deleteOptions", M, One, Ptr, &kDeleteOptions},
};
constexpr Message kEviction{"Eviction", kEvictionFields};

// authorization.k8s.io/v1 SelfSubjectAccessReview

constexpr std::array kSelectorAttributesFields{
    Field{1, "rawSelector", S},
    Field{2, "requirements", M, Many, Omit, &kSelectorRequirement},
};
constexpr Message kSelectorAttributes{"SelectorAttributes", kSelectorAttributesFields};

constexpr std::array kResourceAttributesFields{
    Field{1, "namespace", S},
    Field{2, "verb", S},
    Field{3, "group", S},
    Field{4, "version", S},
    Field{5, "resource", S},
    Field{6, "subresource", S},
    Field{7, "name", S},
    Field{8, "fieldSelector", M, One, Ptr, &kSelectorAttributes},
    Field{9, "labelSelector", M, One, Ptr, &kSelectorAttributes},
};
constexpr Message kResourceAttributes{"ResourceAttributes", kResourceAttributesFields};

constexpr std::array kNonResourceAttributesFields{
    Field{1, "path", S},
    Field{2, "verb", S},
};
constexpr Message kNonResourceAttributes{"NonResourceAttributes", kNonResourceAttributesFields};

constexpr std::array kAccessReviewSpecFields{
    Field{1, "resourceAttributes", M, One, Ptr, &kResourceAttributes},
    Field{2, "nonResourceAttributes", M, One, Ptr, &kNonResourceAttributes},
};
constexpr Message kAccessReviewSpec{"SelfSubjectAccessReviewSpec", kAccessReviewSpecFields};

constexpr std::array kAccessReviewStatusFields{
    Field{1, "allowed", B, One, Always},
    Field{2, "reason", S},
    Field{3, "evaluationError", S},
    Field{4, "denied", B},
};
constexpr Message kAccessReviewStatus{"SubjectAccessReviewStatus", kAccessReviewStatusFields};

constexpr std::array kAccessReviewFields{
    Field{1, "metadata", M, One, Always, &kObjectMeta},
    Field{2, "spec", M, One, Always, &kAccessReviewSpec},
    Field{3, "status", M, One, Always, &kAccessReviewStatus},
};
constexpr Message kAccessReview{"SelfSubjectAccessReview", kAccessReviewFields};

constexpr std::array kKinds{
    Kind{"v1", "Namespace", &kNamespace},
    Kind{"v1", "ResourceQuota", &kResourceQuota},
    Kind{"scheduling.k8s.io/v1", "PriorityClass", &kPriorityClass},
    Kind{"policy/v1", "PodDisruptionBudget", &kDisruptionBudget},
    Kind{"policy/v1", "Eviction", &kEviction},
    // client-go sends DeleteOptions as v1; its home is meta.k8s.io/v1.
    Kind{"v1", "DeleteOptions", &kDeleteOptions},
    Kind{"meta.k8s.io/v1", "DeleteOptions", &kDeleteOptions},
    Kind{"authorization.k8s.io/v1", "SelfSubjectAccessReview", &kAccessReview},
};

}  // namespace

std::span<const Kind> kinds() { return kKinds; }

const Message* find_kind(std::string_view api_version, std::string_view kind) {
  const auto it = std::find_if(kKinds.begin(), kKinds.end(), [&](const Kind& k) {
    return k.api_version == api_version && k.kind == kind;
  });
  return it == kKinds.end() ? nullptr : it->message;
}

}  // namespace scoria::api::protobuf
