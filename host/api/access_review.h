// `kubectl auth can-i`: a SelfSubjectAccessReview (authorization.k8s.io/v1)
// answered from the one access rule serve has: reads are open to every
// client that reaches it, writes need the bearer token when serve has one
// (serve/request_guard.h). A verb or resource it does not serve is "no",
// with the reason.
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>

namespace scoria::api {

/// The path of the review's create, which writes nothing.
inline constexpr std::string_view kAccessReviewPath =
    "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews";

/// `review` with its status set. `may_write`: whether the request that
/// asks may write (it carries the token, or serve has none). Throws
/// ApiError 422 for a review that asks about nothing.
nlohmann::json review_access(nlohmann::json review, bool may_write);

}  // namespace scoria::api
