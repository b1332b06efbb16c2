#include "api/field_validation.h"

#include <charconv>
#include <cstdio>

#include "api/request_path.h"

namespace scoria::api {

namespace {

using nlohmann::json;

std::string unknown_field(const schema::UnknownField& f) {
  return "unknown field " + go_quote(f.path);
}

/// A float as Go's %v writes it: the shortest digits that read back, in
/// %e form when the exponent is below -4 or at least 6 (strconv's rule for
/// the shortest precision), else plain.
std::string go_float(double v) {
  char buf[64];
  const auto sci = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  const std::string_view text(buf, static_cast<size_t>(sci.ptr - buf));
  const size_t e = text.find('e');
  int exponent = 0;
  std::from_chars(text.data() + e + (text[e + 1] == '+' ? 2 : 1), text.data() + text.size(),
                  exponent);
  if (exponent < -4 || exponent >= 6) return std::string(text);
  const auto plain = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed);
  return std::string(buf, static_cast<size_t>(plain.ptr - buf));
}

void append_go(std::string& out, const json& v) {
  switch (v.type()) {
    case json::value_t::object: {
      // Go's fmt prints a map's keys sorted, as nlohmann holds them.
      out += "map[";
      bool first = true;
      for (const auto& [key, x] : v.items()) {
        if (!first) out += ' ';
        first = false;
        out += key;
        out += ':';
        append_go(out, x);
      }
      out += ']';
      return;
    }
    case json::value_t::array: {
      out += '[';
      for (size_t i = 0; i < v.size(); ++i) {
        if (i > 0) out += ' ';
        append_go(out, v[i]);
      }
      out += ']';
      return;
    }
    case json::value_t::string:
      out += v.get_ref<const std::string&>();
      return;
    case json::value_t::null:
      out += "<nil>";
      return;
    case json::value_t::number_float:
      out += go_float(v.get<double>());
      return;
    default:  // booleans and integers print as JSON writes them
      out += v.dump();
      return;
  }
}

}  // namespace

schema::FieldValidation requested_validation(std::string_view query,
                                             schema::FieldValidation fallback,
                                             std::string_view options_kind) {
  const std::optional<std::string> asked = query_param(query, "fieldValidation");
  if (!asked || asked->empty()) return fallback;
  if (const auto v = schema::parse_field_validation(*asked)) return *v;
  throw unsupported_option(options_kind, "fieldValidation", go_quote(*asked),
                           "\"\", \"Ignore\", \"Strict\", \"Warn\"");
}

ApiError unsupported_option(std::string_view options_kind, std::string_view field,
                            std::string_view value, std::string_view supported) {
  const std::string cause =
      "Unsupported value: " + std::string(value) + ": supported values: " + std::string(supported);
  json details = {{"group", "meta.k8s.io"},
                  {"kind", std::string(options_kind)},
                  {"causes", json::array({{{"reason", "FieldValueNotSupported"},
                                           {"message", cause},
                                           {"field", std::string(field)}}})}};
  return ApiError(422, "Invalid",
                  std::string(options_kind) +
                      ".meta.k8s.io \"\" is invalid: " + std::string(field) + ": " + cause,
                  std::move(details));
}

std::vector<schema::UnknownField> FieldValidator::check(const Resource& r, json& object) {
  warnings_.clear();
  if (validation_ == schema::FieldValidation::kStrict)
    return schema::find_unknown_fields(object, r.kind);
  const std::vector<schema::UnknownField> removed = schema::remove_unknown_fields(object, r.kind);
  if (validation_ == schema::FieldValidation::kWarn) warnings_ = unknown_field_warnings(removed);
  return {};
}

void FieldValidator::check_body(const Resource& r, json& object) {
  if (const auto unknown = check(r, object); !unknown.empty()) throw undecodable_body(r, unknown);
}

void FieldValidator::check_patched(const Resource& r, json& patched, const json& patch,
                                   PatchType type) {
  const auto unknown = check(r, patched);
  if (unknown.empty()) return;
  // What the API server shows: the patch it decoded for a strategic merge,
  // else the JSON of the patched object.
  throw invalid_patch(type == PatchType::StrategicMerge ? go_value_text(patch) : patched.dump(),
                      unknown);
}

std::string strict_decoding_error(const std::vector<schema::UnknownField>& fields) {
  std::string out = "strict decoding error: ";
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) out += ", ";
    out += unknown_field(fields[i]);
  }
  return out;
}

ApiError undecodable_body(const Resource& r, const std::vector<schema::UnknownField>& fields) {
  const std::string kind(r.kind);
  return bad_request(kind + " in version " + go_quote(r.version) + " cannot be handled as a " +
                     kind + ": " + strict_decoding_error(fields));
}

ApiError invalid_patch(std::string_view value, const std::vector<schema::UnknownField>& fields) {
  // As the API server's errors.NewInvalid with no kind or name: kubectl
  // prints "The request is invalid: patch: Invalid value: ...".
  const std::string cause =
      "Invalid value: " + go_quote(value) + ": " + strict_decoding_error(fields);
  json details = {
      {"causes",
       json::array({{{"reason", "FieldValueInvalid"}, {"message", cause}, {"field", "patch"}}})}};
  return ApiError(422, "Invalid", " \"\" is invalid: patch: " + cause, std::move(details));
}

std::string go_value_text(const json& value) {
  std::string out;
  append_go(out, value);
  return out;
}

std::vector<std::string> unknown_field_warnings(const std::vector<schema::UnknownField>& fields) {
  std::vector<std::string> out;
  out.reserve(fields.size());
  for (const schema::UnknownField& f : fields) out.push_back(warning_header(unknown_field(f)));
  return out;
}

std::string warning_header(std::string_view text) {
  std::string out = "299 - \"";
  for (const char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  out += '"';
  return out;
}

std::string go_quote(std::string_view s) {
  std::string out = "\"";
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\a':
        out += "\\a";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\v':
        out += "\\v";
        break;
      default:
        if (u < 0x20 || u == 0x7f) {
          char hex[8];
          std::snprintf(hex, sizeof hex, "\\x%02x", u);
          out += hex;
        } else {
          out += c;
        }
    }
  }
  out += '"';
  return out;
}

}  // namespace scoria::api
