#include "model/resource_list.h"

#include <algorithm>

namespace scoria::model {

namespace {

std::pair<std::string, double>* find(ResourceList& list, const std::string& name) {
  auto it = std::find_if(list.begin(), list.end(), [&](const auto& e) { return e.first == name; });
  return it == list.end() ? nullptr : &*it;
}

}  // namespace

void add_into(ResourceList& to, const ResourceList& from) {
  for (const auto& [name, value] : from) {
    if (auto* e = find(to, name)) {
      e->second += value;
    } else {
      to.emplace_back(name, value);
    }
  }
}

void max_into(ResourceList& to, const ResourceList& from) {
  for (const auto& [name, value] : from) {
    if (auto* e = find(to, name)) {
      e->second = std::max(e->second, value);
    } else {
      to.emplace_back(name, value);
    }
  }
}

}  // namespace scoria::model
