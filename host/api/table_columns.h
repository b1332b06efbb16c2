// The columns of a server-side Table (api/table.h) and the helpers their
// cells read objects with, shared by the files that print each group of
// kinds: table.cpp (the core and Volcano kinds), storage_table.cpp and
// device_table.cpp (resource.k8s.io).
#pragma once

#include <chrono>
#include <functional>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace scoria::api::columns {

using Clock = std::chrono::system_clock;

struct Column {
  const char* name;
  const char* type;  // string, integer, date
  int priority;      // 1: shown with -o wide only
  const char* description;
  std::function<nlohmann::json(const nlohmann::json& object, Clock::time_point now)> cell;
};

/// The value at `path` in `j`; null when any step is missing.
const nlohmann::json& at(const nlohmann::json& j, std::initializer_list<const char*> path);
/// A string, number or boolean at `path` as text; `absent` otherwise.
std::string text(const nlohmann::json& j, std::initializer_list<const char*> path,
                 const char* absent = "<none>");

Column name_column();
Column age_column();

/// The columns kube-apiserver prints a storage kind with (storage_table.cpp)
/// and a resource.k8s.io kind with (device_table.cpp); none for another.
std::vector<Column> storage_columns(std::string_view kind);
std::vector<Column> device_columns(std::string_view kind);

}  // namespace scoria::api::columns
