#include "source/object_collector.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <future>
#include <optional>
#include <utility>

#include "decode/field_reader.h"
#include "decode/object_names.h"
#include "model/error.h"

namespace scoria::source {

namespace {

using decode::quote;

/// An object's namespace ("" for the cluster-scoped kinds) and name.
template <class T>
std::pair<std::string_view, std::string_view> name_of(const T& o) {
  if constexpr (requires { o.namespace_; })
    return {o.namespace_, o.name};
  else
    return {std::string_view(), o.name};
}

/// The storage kinds: nothing else collected refers to them, and a cluster
/// of volumes holds as many of them as pods, so they are collected on a
/// core of their own.
template <class T>
constexpr bool kStorage =
    std::is_same_v<T, model::PersistentVolume> || std::is_same_v<T, model::PersistentVolumeClaim> ||
    std::is_same_v<T, model::StorageClass> || std::is_same_v<T, model::CSINode> ||
    std::is_same_v<T, model::CSIDriver> || std::is_same_v<T, model::CSIStorageCapacity>;

/// Calls work(true) on a second thread and work(false) on this one.
template <class F>
void on_two_cores(F&& work) {
  std::future<void> storage = std::async(std::launch::async, [&] { work(true); });
  work(false);
  storage.get();
}

bool earlier(const Origin& a, const Origin& b) {
  return std::tie(a.order, a.doc, a.item) < std::tie(b.order, b.doc, b.item);
}

/// A name used twice: where first, and where again.
struct Duplicate {
  const Origin* first = nullptr;
  const Origin* again = nullptr;
  size_t kind = 0;  // decode::Object's index
  std::string ns, name;
};

/// The earliest object of `list` (read after `before`, which may be null)
/// whose name an earlier one has, if any. Sorting hashes finds them without
/// a table of every name: a read holds hundreds of thousands of objects.
template <class T>
std::optional<Duplicate> first_duplicate(const std::vector<T>* before, const std::vector<T>& list,
                                         const std::vector<Origin>& origins) {
  static const Origin kBefore{};
  const size_t nb = before != nullptr ? before->size() : 0;
  const auto name = [&](size_t i) { return name_of(i < nb ? (*before)[i] : list[i - nb]); };
  const auto origin = [&](size_t i) -> const Origin& { return i < nb ? kBefore : origins[i - nb]; };
  std::vector<std::pair<uint64_t, uint32_t>> keys;
  keys.reserve(nb + list.size());
  const std::hash<std::string_view> hash;
  for (size_t i = 0; i < nb + list.size(); ++i) {
    const auto [ns, n] = name(i);
    keys.emplace_back(hash(ns) * 0x9E3779B97F4A7C15ULL ^ hash(n), static_cast<uint32_t>(i));
  }
  std::sort(keys.begin(), keys.end());
  std::optional<Duplicate> found;
  for (size_t run = 0; run < keys.size();) {
    size_t end = run + 1;
    while (end < keys.size() && keys[end].first == keys[run].first) ++end;
    // Within a run positions ascend: the first equal name before j is the
    // first use.
    for (size_t j = run + 1; j < end; ++j) {
      const uint32_t again = keys[j].second;
      if (again < nb) continue;  // objects given before were accepted then
      for (size_t k = run; k < j; ++k) {
        if (name(keys[k].second) != name(again)) continue;
        if (!found || earlier(origin(again), *found->again)) {
          const auto [ns, n] = name(again);
          found = Duplicate{&origin(keys[k].second), &origin(again), kObjectIndex<T>,
                            std::string(ns), std::string(n)};
        }
        break;
      }
    }
    run = end;
  }
  return found;
}

std::string where(const Origin& o) {
  if (o.file.empty()) return "an object given before";
  return "document " + std::to_string(o.doc) + " of " + std::string(o.file);
}

}  // namespace

std::string message_at(const Origin* o, std::string_view kind, const std::string& object,
                       std::string_view field, std::string_view what) {
  std::string msg;
  if (o != nullptr && !o->file.empty()) {
    msg = std::string(o->file) + ": document " + std::to_string(o->doc) + " (" +
          decode::object_label(kind, object) + "): field " +
          (o->item >= 0 ? "items[" + std::to_string(o->item) + "]." : "") + std::string(field) +
          ": ";
  } else {
    msg = decode::object_label(kind, object) + ": field " + std::string(field) + ": ";
  }
  return msg + std::string(what);
}

void fail_at(const Origin* o, std::string_view kind, const std::string& object,
             std::string_view field, std::string_view what) {
  throw InputError(message_at(o, kind, object, field, what));
}

void DecodedRun::document_done(size_t run_documents) {
  if (++documents < run_documents) return;
  std::array<size_t, std::variant_size_v<decode::Object>> counts{};
  for (const decode::Decoded& d : pending) ++counts[d.object.index()];
  // Filed once, when the run is whole: each list gets its exact room.
  model::for_each_list(objects, [&](auto& list) {
    using T = typename std::decay_t<decltype(list)>::value_type;
    list.reserve(counts[kObjectIndex<T>]);
    places[kObjectIndex<T>].reserve(counts[kObjectIndex<T>]);
  });
  for (decode::Decoded& d : pending) {
    std::visit(
        [&](auto& object) {
          using T = std::decay_t<decltype(object)>;
          model::list_of<T>(objects).push_back(std::move(object));
          places[kObjectIndex<T>].push_back(Place{d.doc, d.item, d.never_preempt});
        },
        d.object);
  }
  std::vector<decode::Decoded>().swap(pending);
}

void Collector::add(std::vector<DecodedRun>& runs, std::string_view file) {
  ++files_;
  // Each kind gets its room at once: growing a list of hundreds of
  // thousands moves every object again and again.
  model::for_each_list(objects_, [&](auto& list) {
    using T = typename std::decay_t<decltype(list)>::value_type;
    size_t count = 0;
    for (DecodedRun& run : runs) count += model::list_of<T>(run.objects).size();
    list.reserve(list.size() + count);
    origins_[kObjectIndex<T>].reserve(list.size() + count);
  });
  // The storage kinds are moved on a second core while the rest are.
  const auto move = [&](bool storage) {
    model::for_each_list(objects_, [&](auto& list) {
      using T = typename std::decay_t<decltype(list)>::value_type;
      if (kStorage<T> != storage) return;
      std::vector<Origin>& origins = origins_[kObjectIndex<T>];
      for (DecodedRun& run : runs) {
        std::vector<T>& from = model::list_of<T>(run.objects);
        std::vector<Place>& places = run.places[kObjectIndex<T>];
        for (size_t i = 0; i < from.size(); ++i) {
          if constexpr (std::is_same_v<T, model::PriorityClass>)
            if (places[i].never_preempt) never_preempt_.insert(from[i].name);
          list.push_back(std::move(from[i]));
          origins.push_back(Origin{file, files_, places[i].doc, places[i].item});
        }
        std::vector<T>().swap(from);
        std::vector<Place>().swap(places);
      }
    });
  };
  on_two_cores(move);
  runs.clear();
}

void Collector::check_unique() const {
  // The storage kinds' names on a second core, the rest's on this one.
  std::array<std::optional<Duplicate>, 2> earliest;  // [storage]
  on_two_cores([&](bool storage) {
    model::for_each_list(objects_, [&](const auto& list) {
      using T = typename std::decay_t<decltype(list)>::value_type;
      if (kStorage<T> != storage) return;
      const auto* before = before_ != nullptr ? &model::list_of<T>(*before_) : nullptr;
      auto d = first_duplicate(before, list, origins_[kObjectIndex<T>]);
      std::optional<Duplicate>& found = earliest[storage ? 1 : 0];
      if (d && (!found || earlier(*d->again, *found->again))) found = std::move(d);
    });
  });
  std::optional<Duplicate>& found = earliest[0];
  if (earliest[1] && (!found || earlier(*earliest[1]->again, *found->again)))
    found = std::move(earliest[1]);
  if (!found) return;
  const decode::KindInfo& kind = decode::kinds()[found->kind];
  const std::string object = kind.namespaced ? found->ns + "/" + found->name : found->name;
  const Origin& first = *found->first;
  const std::string before =
      first.file == found->again->file ? "document " + std::to_string(first.doc) : where(first);
  const std::string scope = kind.namespaced ? " in namespace " + quote(found->ns) : "";
  fail_at(found->again, kind.kind, object, "metadata.name",
          quote(found->name) + " is already used by " + before + "; give each " +
              std::string(kind.kind) + scope + " its own name");
}

}  // namespace scoria::source
