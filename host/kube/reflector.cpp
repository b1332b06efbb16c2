#include "kube/reflector.h"

#include <algorithm>
#include <optional>
#include <unordered_set>

#include "http/client.h"
#include "input/json_reader.h"
#include "input/ordered_batches.h"
#include "kube/decode_change.h"
#include "log/log.h"

namespace scoria::kube {

namespace {

// Why parse_answer refused `text`, if it was its nesting: asked only then,
// so a sound answer is scanned once.
std::optional<std::string> too_deep(std::string_view text) {
  if (input::json_nesting(text) <= kMaxNesting) return std::nullopt;
  return " nests deeper than " + std::to_string(kMaxNesting) + " levels; no Kubernetes object does";
}

using nlohmann::json;

// Kinds a cluster may not have: Volcano installs HyperNode from 1.12,
// NodeShard from 1.14 and
// Numatopology with its resource exporter (CRDs), and the API server serves
// resource.k8s.io/v1 (Dynamic Resource Allocation) from Kubernetes 1.34 and
// scheduling.k8s.io/v1beta1 (the Workload API's PodGroup) from 1.37, when
// the group is enabled. Without them the API server answers 404; the kind
// is then taken as having no objects (as Volcano's scheduler runs without
// them) and looked for again later.
bool optional_kind(const api::Resource& r) {
  return r.group == "topology.volcano.sh" || r.group == "nodeinfo.volcano.sh" ||
         r.group == "shard.volcano.sh" || r.group == "resource.k8s.io" ||
         (r.group == "scheduling.k8s.io" && r.version != "v1");
}

// What goes missing together: a built-in group's version as a whole, a CRD
// alone.
std::string absent_unit(const api::Resource& r) {
  if (r.group == "resource.k8s.io" || r.group == "scheduling.k8s.io") return api::api_version(r);
  return std::string(r.plural);
}

// How often a missing optional kind is looked for again.
constexpr std::chrono::seconds kAbsentRecheck{60};
// A 410 this soon after a list is the server's answer to every watch.
constexpr std::chrono::seconds kGoneGrace{1};

const std::string& text_at(const json& j, const char* a, const char* b) {
  static const std::string empty;
  const auto outer = j.find(a);
  if (outer == j.end() || !outer->is_object()) return empty;
  const auto inner = outer->find(b);
  return inner != outer->end() && inner->is_string() ? inner->get_ref<const std::string&>() : empty;
}

}  // namespace

bool Absences::note_absent(std::string_view what) {
  std::lock_guard lock(mutex_);
  return absent_.emplace(what).second;
}

void Absences::note_served(std::string_view what) {
  std::lock_guard lock(mutex_);
  if (const auto it = absent_.find(what); it != absent_.end()) absent_.erase(it);
}

Reflector::Reflector(ApiClient& client, const api::Resource& resource, ChangeQueue& out,
                     ReflectorOptions options, Absences* absences)
    : client_(client),
      resource_(resource),
      kind_(cache::kind_from_name(resource.kind).value_or(cache::Kind::Pod)),
      out_(out),
      options_(options),
      absences_(absences),
      random_(std::random_device{}()) {}

Reflector::~Reflector() { stop(); }

void Reflector::start() {
  thread_ = std::thread([this] { run(); });
}

void Reflector::stop() {
  stop_ = true;
  {
    std::lock_guard lock(connection_mutex_);
    if (connection_) connection_->cancel();
  }
  if (thread_.joinable()) thread_.join();
}

std::string Reflector::path() const {
  if (resource_.group.empty())
    return "/api/" + std::string(resource_.version) + "/" + std::string(resource_.plural);
  return "/apis/" + std::string(resource_.group) + "/" + std::string(resource_.version) + "/" +
         std::string(resource_.plural);
}

void Reflector::run() {
  {
    std::lock_guard lock(connection_mutex_);
    if (stop_) return;
    connection_ = client_.connect();
  }
  Clock::duration backoff = options_.backoff_initial;
  while (!stop_) {
    std::optional<std::chrono::seconds> hint;
    try {
      if (version_.empty()) list();
      watch();
      backoff = options_.backoff_initial;  // a watch that ran its course
      continue;
    } catch (const Cancelled&) {
      return;
    } catch (const Gone&) {
      version_.clear();
      // A watch that expired after running a while relists at once, as
      // client-go's does; one answered 410 right after its list (a server
      // that answers every watch so) waits the backoff, as client-go's
      // next ListAndWatch does, instead of relisting in a busy loop.
      if (Clock::now() - listed_at_ >= kGoneGrace) continue;
      log_failure("every watch is answered 410 Gone right after its list");
    } catch (const Absent&) {
      const std::string unit = absent_unit(resource_);
      if (!absent_logged_ && (absences_ == nullptr || absences_->note_absent(unit))) {
        const std::string again =
            "; looking again every " + std::to_string(kAbsentRecheck.count()) + "s";
        if (resource_.group == "resource.k8s.io") {
          log::write(log::kInfo, kKubernetesLog,
                     unit + ": the API server does not serve Dynamic Resource Allocation (" +
                         path() +
                         " answers 404: Kubernetes before 1.34, or the group disabled), so "
                         "there are no DeviceClasses, ResourceSlices, ResourceClaims or "
                         "ResourceClaimTemplates, and pods that claim devices wait" +
                         again);
        } else if (resource_.group == "scheduling.k8s.io") {
          log::write(log::kInfo, kKubernetesLog,
                     unit + ": the API server does not serve the Workload API's PodGroups (" +
                         path() +
                         " answers 404: Kubernetes before 1.37, or the GenericWorkload feature "
                         "off), so pods naming one in spec.schedulingGroup wait" +
                         again);
        } else {
          log::write(log::kInfo, kKubernetesLog,
                     unit + ": the API server has no such resource (" + path() +
                         " answers 404; its CRD is not installed), so there are none" + again);
        }
      }
      absent_logged_ = true;
      Clock::duration wait = kAbsentRecheck;
      backoff_wait(wait, std::nullopt);
      continue;
    } catch (const TransportError& e) {
      log_failure(e.what());
    } catch (const ApiError& e) {
      hint = e.response().retry_after;
      log_failure(e.what());
    } catch (const std::exception& e) {
      log_failure(e.what());
    }
    backoff_wait(backoff, hint);
  }
}

void Reflector::backoff_wait(Clock::duration& backoff, std::optional<std::chrono::seconds> hint) {
  std::uniform_real_distribution<double> jitter(1.0, 2.0);
  Clock::duration wait = std::chrono::duration_cast<Clock::duration>(backoff * jitter(random_));
  if (hint) wait = std::max<Clock::duration>(wait, *hint);
  backoff = std::min(backoff * 2, options_.backoff_cap);
  const Clock::time_point until = Clock::now() + wait;
  while (!stop_ && Clock::now() < until)
    std::this_thread::sleep_for(
        std::min<Clock::duration>(until - Clock::now(), std::chrono::milliseconds(50)));
}

void Reflector::log_failure(const std::string& what) {
  log::write(log::kWarning, kKubernetesLog,
             std::string(resource_.plural) + ": " + what + "; retrying with backoff");
}

void Reflector::list() {
  const Clock::time_point start = Clock::now();
  std::vector<cache::ObjectChange> changes;
  std::unordered_map<std::string, std::string> seen;
  std::string cont;
  std::string version;
  std::unordered_set<std::string> tokens;
  size_t objects = 0;
  do {
    std::string target = path() + "?limit=" + std::to_string(options_.page_size);
    if (!cont.empty()) target += "&continue=" + http::percent_encode(cont);
    if (!client_.admit(stop_)) throw Cancelled();
    const Response r = connection_->request("GET", target, "", "", options_.request_timeout);
    if (r.status == 410 && !cont.empty()) {
      // The continue token expired between pages: list from the start.
      changes.clear();
      seen.clear();
      cont.clear();
      tokens.clear();
      objects = 0;
      continue;
    }
    if (r.status == 404 && cont.empty() && optional_kind(resource_)) {
      // As an empty list: the cache learns there are none (and forgets any
      // a CRD that was removed had), and the first sync does not wait.
      std::vector<cache::ObjectChange> gone;
      for (const auto& [key, v] : known_) gone.push_back(cache::ObjectChange::remove(kind_, key));
      known_.clear();
      version_.clear();
      out_.push(std::move(gone));
      if (!listed_once_) {
        listed_once_ = true;
        out_.listed(std::string(resource_.plural));
      }
      throw Absent();
    }
    if (r.status != 200) throw ApiError("list failed", r);
    if (absent_logged_ && absences_ != nullptr) absences_->note_served(absent_unit(resource_));
    absent_logged_ = false;
    json page = parse_answer(r.body);
    if (!page.is_object() || !page.contains("items") || !page["items"].is_array())
      throw TransportError("the list of " + std::string(resource_.plural) +
                           too_deep(r.body).value_or(" is not a Kubernetes list"));
    version = text_at(page, "metadata", "resourceVersion");
    cont = text_at(page, "metadata", "continue");
    // A server whose pages never end would be listed forever, memory
    // growing: a token given twice, or more objects than any cluster has,
    // ends the list as a failure (listed again after the back-off).
    if (!cont.empty() && !tokens.insert(cont).second)
      throw TransportError("the server answered the continue token \"" + cont.substr(0, 64) +
                           "\" a second time");
    objects += page["items"].size();
    if (objects > options_.max_list_objects)
      throw TransportError("the list of " + std::string(resource_.plural) + " passed " +
                           std::to_string(options_.max_list_objects) +
                           " objects and goes on; no cluster is that large");
    // Items are decoded on every core, then taken in order here.
    json& items = page["items"];
    std::vector<std::vector<cache::ObjectChange>> decoded(items.size());
    std::vector<std::string> errors(items.size());
    input::run_ordered_batches(items.size(), [&](size_t i) {
      if (!items[i].is_object()) return true;
      try {
        decode_change(items[i], resource_, decoded[i]);
      } catch (const std::exception& e) {
        errors[i] = e.what();
      }
      return true;
    });
    for (size_t i = 0; i < items.size(); ++i) {
      const json& item = items[i];
      if (!item.is_object()) continue;
      std::string key = key_of(item);
      std::string item_version = text_at(item, "metadata", "resourceVersion");
      if (errors[i].empty()) {
        undecodable_.erase(key);
        for (cache::ObjectChange& c : decoded[i]) changes.push_back(std::move(c));
      } else {
        log_undecodable(key, item_version, errors[i]);
      }
      seen.emplace(std::move(key), std::move(item_version));
    }
    // The first list goes out page by page, so the cache takes the pages
    // while later ones are read; a relist goes out whole, with what it
    // found deleted, once it is complete.
    if (!listed_once_) out_.push(std::exchange(changes, {}));
  } while (!cont.empty() && !stop_);
  if (stop_) throw Cancelled();
  // What the last list had and this one has not was deleted meanwhile.
  for (const auto& [key, v] : known_)
    if (!seen.contains(key)) changes.push_back(cache::ObjectChange::remove(kind_, key));
  known_ = std::move(seen);
  version_ = version;
  ++lists_;
  listed_at_ = Clock::now();
  log::write(
      log::kInfo, kKubernetesLog,
      std::string(resource_.plural) + ": listed " + std::to_string(known_.size()) + " in " +
          std::to_string(
              std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count()) +
          "ms (resourceVersion " + version_ + ")");
  out_.push(std::move(changes));
  if (!listed_once_) {
    listed_once_ = true;
    out_.listed(std::string(resource_.plural));
  }
}

void Reflector::watch() {
  std::uniform_int_distribution<int> spread(0, options_.min_watch_seconds);
  const int timeout = options_.min_watch_seconds + spread(random_);
  const std::string target = path() + "?watch=true&allowWatchBookmarks=true&resourceVersion=" +
                             http::percent_encode(version_) +
                             "&timeoutSeconds=" + std::to_string(timeout);
  if (!client_.admit(stop_)) throw Cancelled();
  const Response opened = connection_->open_stream(target, options_.request_timeout);
  if (opened.status == 410) throw Gone{};
  if (opened.status != 200) throw ApiError("watch failed", opened);
  ++watches_;
  std::string line;
  // The server ends the watch at its timeout; silence well past it is a
  // dead connection.
  const Clock::duration idle = std::chrono::seconds(timeout) + std::chrono::seconds(30);
  while (connection_->next_line(line, idle)) {
    if (line.empty()) continue;
    json event = parse_answer(line);
    if (!event.is_object() || !event.contains("type") || !event["type"].is_string())
      throw TransportError("a watch event of " + std::string(resource_.plural) +
                           too_deep(line).value_or(" is not JSON: " + line.substr(0, 100)));
    const std::string& type = event["type"].get_ref<const std::string&>();
    json& object = event["object"];
    if (type == "ERROR") {
      const int code = object.is_object() ? object.value("code", 0) : 0;
      if (code == 410) throw Gone{};
      throw TransportError("the watch of " + std::string(resource_.plural) +
                           " ended with an error: " + object.dump().substr(0, 200));
    }
    if (!object.is_object()) continue;
    const std::string version = text_at(object, "metadata", "resourceVersion");
    if (type == "BOOKMARK") {
      if (!version.empty()) version_ = version;
      continue;
    }
    std::string key = key_of(object);
    if (type == "DELETED") {
      known_.erase(key);
      undecodable_.erase(key);
      out_.push(cache::ObjectChange::remove(kind_, std::move(key)));
    } else if (type == "ADDED" || type == "MODIFIED") {
      known_[key] = version;
      std::vector<cache::ObjectChange> changes;
      if (decode(object, changes)) out_.push(std::move(changes));
    }
    if (!version.empty()) version_ = version;
  }
}

std::string Reflector::key_of(const json& item) const { return object_key(item, resource_); }

bool Reflector::decode(json& item, std::vector<cache::ObjectChange>& out) {
  const std::string key = key_of(item);
  try {
    decode_change(item, resource_, out);
    undecodable_.erase(key);
    return true;
  } catch (const std::exception& e) {
    log_undecodable(key, text_at(item, "metadata", "resourceVersion"), e.what());
    return false;
  }
}

void Reflector::log_undecodable(const std::string& key, const std::string& version,
                                const std::string& error) {
  const auto [it, fresh] = undecodable_.try_emplace(key, version);
  if (!fresh && it->second == version) return;
  it->second = version;
  log::write(log::kWarning, kKubernetesLog,
             std::string(resource_.kind) + " " + key + " (resourceVersion " + version +
                 ") cannot be read and is skipped: " + error);
}

}  // namespace scoria::kube
