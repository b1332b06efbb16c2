// The Kubernetes-shaped API over a real store: the first line of the input
// is the request line ("PATCH /api/v1/namespaces/ns/pods/p?fieldManager=x"),
// an optional "Content-Type: ..." line follows, the rest is the body.
// handle() must answer everything (it never throws); a crash, a sanitizer
// report or an escaped exception is a finding. The store lives on tmpfs
// when there is one (its fsyncs cost nothing there) and starts over every
// few hundred inputs, so what earlier inputs stored stays bounded.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include "cache/cluster_cache.h"
#include "http/server.h"
#include "serve/kube_api.h"
#include "serve/local_cluster.h"
#include "serve/watch_hub.h"
#include "store/object_store.h"

namespace {

namespace http = boost::beast::http;

struct Fixture {
  std::filesystem::path dir;
  std::unique_ptr<scoria::store::ObjectStore> store;
  std::unique_ptr<scoria::serve::WatchHub> watchers;
  std::unique_ptr<scoria::serve::LocalCluster> cluster;
  std::unique_ptr<scoria::cache::ClusterCache> cache;
  std::unique_ptr<scoria::serve::KubeApi> api;
  int runs = 0;

  Fixture() {
    const std::filesystem::path shm = "/dev/shm";
    dir = (std::filesystem::is_directory(shm) ? shm : std::filesystem::temp_directory_path()) /
          ("scoria-api-fuzz-" + std::to_string(::getpid()));
    reset();
  }
  ~Fixture() {
    api.reset();
    cache.reset();
    cluster.reset();
    watchers.reset();
    store.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  Fixture(const Fixture&) = delete;
  Fixture& operator=(const Fixture&) = delete;
  void reset() {
    api.reset();
    cache.reset();
    cluster.reset();
    watchers.reset();
    store.reset();
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    store = std::make_unique<scoria::store::ObjectStore>(dir / "store.db");
    watchers = std::make_unique<scoria::serve::WatchHub>(*store);
    cluster = std::make_unique<scoria::serve::LocalCluster>(*store);
    cache = std::make_unique<scoria::cache::ClusterCache>();
    api = std::make_unique<scoria::serve::KubeApi>(*store, *watchers, cluster->written());
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Fixture f;
  if (++f.runs % 300 == 0) f.reset();
  std::string_view text(reinterpret_cast<const char*>(data), size);
  const size_t eol = text.find('\n');
  const std::string_view line = text.substr(0, eol);
  text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
  const size_t space = line.find(' ');
  if (space == std::string_view::npos) return 0;
  const http::verb method = http::string_to_verb(boost::beast::string_view(line.data(), space));
  if (method == http::verb::unknown) return 0;
  const std::string target(line.substr(space + 1));
  if (target.empty() || target[0] != '/') return 0;
  std::string content_type = "application/json";
  if (text.starts_with("Content-Type: ")) {
    const size_t end = text.find('\n');
    content_type = std::string(text.substr(14, end == std::string_view::npos ? end : end - 14));
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
  }
  scoria::http::Request request(method, target, 11);
  request.set(http::field::content_type, content_type);
  request.set(http::field::accept,
              size % 2 ? "application/json;as=Table;v=v1;g=meta.k8s.io" : "application/json");
  request.body() = std::string(text);
  request.prepare_payload();
  const size_t question = target.find('?');
  const std::string_view path = std::string_view(target).substr(0, question);
  const std::string_view query = question == std::string::npos
                                     ? std::string_view()
                                     : std::string_view(target).substr(question + 1);
  (void)f.api->handle(request, path, query);
  f.watchers->pump();
  // The cache takes the write as a session would (what the API decoded).
  (void)f.cluster->refresh(*f.cache);
  return 0;
}
