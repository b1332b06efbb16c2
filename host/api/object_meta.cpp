#include "api/object_meta.h"

#include <charconv>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <stdexcept>

#include "api/status.h"

namespace scoria::api {

namespace {

using nlohmann::json;

}  // namespace

ObjectMeta::ObjectMeta() : random_(std::random_device{}()) {}

std::string ObjectMeta::uid() {
  // A version-4 UUID.
  const uint64_t a = random_(), b = random_();
  char out[37];
  std::snprintf(out, sizeof out, "%08x-%04x-4%03x-%04x-%012llx", static_cast<unsigned>(a >> 32),
                static_cast<unsigned>((a >> 16) & 0xffff), static_cast<unsigned>(a & 0xfff),
                static_cast<unsigned>(((b >> 48) & 0x3fff) | 0x8000),
                static_cast<unsigned long long>(b & 0xffffffffffffULL));
  return out;
}

std::string ObjectMeta::rfc3339(std::chrono::system_clock::time_point at) {
  const std::time_t t = std::chrono::system_clock::to_time_t(at);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

void ObjectMeta::on_create(json& object, const Resource& r, const std::string& path_namespace) {
  if (!object.is_object()) throw bad_request("the body is not an object");
  object["apiVersion"] = api_version(r);
  object["kind"] = std::string(r.kind);
  json& meta = object["metadata"];
  if (!meta.is_object()) meta = json::object();
  if (r.namespaced) {
    const std::string given = meta.value("namespace", "");
    if (!given.empty() && !path_namespace.empty() && given != path_namespace) {
      throw bad_request("the namespace of the provided object (" + given +
                        ") does not match the namespace sent on the request (" + path_namespace +
                        ")");
    }
    if (given.empty()) meta["namespace"] = path_namespace.empty() ? "default" : path_namespace;
  } else {
    meta.erase("namespace");
  }
  const std::string name = meta.value("name", "");
  const std::string generate = meta.value("generateName", "");
  if (name.empty() && !generate.empty()) {
    static constexpr char kAlphabet[] = "bcdfghjklmnpqrstvwxz2456789";
    std::string suffix;
    for (int i = 0; i < 5; ++i) suffix += kAlphabet[random_() % (sizeof kAlphabet - 1)];
    meta["name"] = generate + suffix;
  }
  meta["uid"] = uid();
  meta["creationTimestamp"] = rfc3339(std::chrono::system_clock::now());
  meta["generation"] = 1;
  meta.erase("resourceVersion");
  meta.erase("deletionTimestamp");
}

void ObjectMeta::on_update(json& object, const json& old, const Resource& r) {
  if (!object.is_object()) throw bad_request("the body is not an object");
  if (const auto kind = object.find("kind"); kind != object.end() && kind->is_string() &&
                                             !kind->get<std::string>().empty() && *kind != r.kind)
    throw bad_request("the kind of the object (" + kind->get<std::string>() +
                      ") does not match the kind of the resource (" + std::string(r.kind) + ")");
  // What identifies the object cannot change (kube-apiserver's
  // ValidateObjectMetaUpdate); left out, it is kept.
  if (const auto given = object.find("metadata"); given != object.end() && given->is_object())
    for (const char* key : {"name", "namespace", "uid"}) {
      const auto now = given->find(key);
      if (now == given->end() || now->is_null() || *now == "") continue;
      const json& was = old.at("metadata").value(key, json(""));
      if (*now != was)
        throw invalid(
            r.group, r.kind, old.at("metadata").value("name", ""),
            {{"FieldValueInvalid", "Invalid value: " + now->dump() + ": field is immutable",
              std::string("metadata.") + key}});
    }
  object["apiVersion"] = api_version(r);
  object["kind"] = std::string(r.kind);
  json& meta = object["metadata"];
  if (!meta.is_object()) meta = json::object();
  const json& old_meta = old.at("metadata");
  for (const char* key : {"uid", "creationTimestamp", "namespace", "name", "deletionTimestamp",
                          "deletionGracePeriodSeconds"}) {
    if (old_meta.contains(key)) {
      meta[key] = old_meta[key];
    } else {
      meta.erase(key);
    }
  }
  const int64_t generation = old_meta.value("generation", int64_t{1});
  const bool spec_changed = object.value("spec", json()) != old.value("spec", json());
  meta["generation"] = spec_changed ? generation + 1 : generation;
  meta.erase("resourceVersion");
}

std::string ObjectMeta::VersionSlot::fill(int64_t version) const {
  const std::string number = std::to_string(version);
  std::string text;
  text.reserve(before.size() + number.size() + after.size());
  text.append(before).append(number).append(after);
  return text;
}

ObjectMeta::VersionSlot ObjectMeta::version_slot(const json& object) {
  // A compact dump member by member (keys in the order json keeps them,
  // which is the order dump() writes), with a gap where
  // "resourceVersion" sorts among metadata's keys.
  constexpr std::string_view kKey = "resourceVersion";
  const auto text = [](const json& j) {
    return j.dump(-1, ' ', false, json::error_handler_t::replace);
  };
  const auto meta = object.find("metadata");
  if (!object.is_object() || meta == object.end() || !meta->is_object())
    throw std::invalid_argument("version_slot: the object has no metadata");
  VersionSlot slot;
  std::string* out = &slot.before;
  *out += '{';
  bool first = true;
  for (const auto& [key, value] : object.items()) {
    if (!first) *out += ',';
    first = false;
    *out += text(json(key));
    *out += ':';
    if (key != "metadata" || !value.is_object()) {
      *out += text(value);
      continue;
    }
    *out += '{';
    bool first_meta = true;
    for (const auto& [meta_key, meta_value] : value.items()) {
      if (meta_key == kKey) continue;
      if (out == &slot.before && meta_key > kKey) {
        *out += first_meta ? "\"resourceVersion\":\"" : ",\"resourceVersion\":\"";
        out = &slot.after;
        *out += "\",";
      } else if (!first_meta) {
        *out += ',';
      }
      first_meta = false;
      *out += text(json(meta_key));
      *out += ':';
      *out += text(meta_value);
    }
    if (out == &slot.before) {
      *out += first_meta ? "\"resourceVersion\":\"" : ",\"resourceVersion\":\"";
      out = &slot.after;
      *out += '"';
    }
    *out += '}';
  }
  *out += '}';
  return slot;
}

void ObjectMeta::stamp(json& object, int64_t version) {
  if (object.is_object()) object["metadata"]["resourceVersion"] = std::to_string(version);
}

std::optional<int64_t> ObjectMeta::requested_version(const json& object) {
  const json* meta =
      object.is_object() && object.contains("metadata") ? &object["metadata"] : nullptr;
  if (meta == nullptr || !meta->is_object() || !meta->contains("resourceVersion"))
    return std::nullopt;
  const json& rv = (*meta)["resourceVersion"];
  if (!rv.is_string()) throw bad_request("metadata.resourceVersion: must be a string");
  const std::string& s = rv.get_ref<const std::string&>();
  if (s.empty()) return std::nullopt;
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || v < 0)
    throw bad_request("metadata.resourceVersion: \"" + s + "\" is not a resource version");
  return v;
}

}  // namespace scoria::api
