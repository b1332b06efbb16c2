// The media type a Content-Type header names: what the guard admits and
// what decides how a body is read.
#pragma once

#include <string>
#include <string_view>

namespace scoria::api {

/// `content_type` without its parameters (";charset=..."), spaces and tabs
/// around it dropped, in lower case: "Application/JSON; charset=utf-8" is
/// "application/json".
std::string media_type(std::string_view content_type);

}  // namespace scoria::api
