// What it costs the local source to bring the cache up to the store after a
// write: incremental (1% of the pods changed) against a full relist, and
// against the reload it replaced (every object's JSON concatenated and
// parsed again). And the cache alone, without the store and the decoding.
// Not a test: run by hand, scripts/bench-cache.sh says how.
//
//   scoria_cache_bench CLUSTER.yaml [google benchmark flags]
#include <benchmark/benchmark.h>

#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cache/cluster_cache.h"
#include "decode/object_decoder.h"
#include "input/documents.h"
#include "input/tree_json.h"
#include "serve/local_cluster.h"
#include "source/object_loader.h"
#include "store/object_store.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using namespace scoria;

constexpr size_t kChangedEvery = 100;  // 1% of the pods

/// A store holding the cluster, and the changes each round writes to it.
struct Bench {
  fs::path dir;
  std::unique_ptr<store::ObjectStore> store;
  // Two versions of the same 1% of the pods, written alternately so every
  // round is a real MODIFIED of each.
  std::vector<store::ObjectWrite> round[2];
  std::vector<cache::ObjectChange> decoded_all;
  std::vector<cache::ObjectChange> decoded_round[2];
  size_t pods = 0;

  ~Bench() {
    store.reset();
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

std::string key_of(const json& o, bool namespaced) {
  const json& meta = o["metadata"];
  const std::string name = meta.value("name", "");
  if (!namespaced) return name;
  return meta.value("namespace", "default") + "/" + name;
}

void decode_into(const std::string& text, std::vector<cache::ObjectChange>& out) {
  std::vector<decode::Decoded> decoded;
  decode::decode_document(json::parse(text), "bench", 1, decoded);
  for (auto& d : decoded)
    out.push_back(cache::ObjectChange::upsert(std::move(d.object), d.never_preempt));
}

void load(Bench& b, const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  std::vector<std::vector<store::ObjectWrite>> slots;
  input::stream_documents(
      text.str(), file, input::kFileLimits, [&](size_t n) { slots.assign(n, {}); },
      [&](size_t slot, const input::TreeDocument& doc) {
        const json value = input::to_json(doc.value);
        if (!value.is_object()) return;
        const std::string kind = value.value("kind", "");
        const decode::KindInfo* info = decode::find_kind(kind);
        if (info == nullptr) return;
        slots[slot].push_back({kind, key_of(value, info->namespaced), value.dump()});
      });
  std::vector<store::ObjectWrite> writes;
  for (auto& s : slots)
    for (auto& w : s) writes.push_back(std::move(w));
  b.dir = fs::temp_directory_path() / ("scoria-bench-" + std::to_string(::getpid()));
  fs::create_directories(b.dir);
  b.store = std::make_unique<store::ObjectStore>(b.dir / "store.db");
  b.store->apply(writes);
  for (const auto& w : writes) {
    decode_into(w.json, b.decoded_all);
    if (w.kind != "Pod") continue;
    if (b.pods++ % kChangedEvery != 0) continue;
    for (int v = 0; v < 2; ++v) {
      json pod = json::parse(w.json);
      pod["metadata"]["labels"]["bench-round"] = std::to_string(v);
      b.round[v].push_back({w.kind, w.key, pod.dump()});
      decode_into(b.round[v].back().json, b.decoded_round[v]);
    }
  }
  std::cerr << "store: " << writes.size() << " objects, " << b.pods << " pods; "
            << b.round[0].size() << " pods change per round\n";
}

// The reload LocalCluster::refresh did before the cache was incremental.
void reload_before(store::ObjectStore& store, cache::ClusterCache& cache) {
  std::string text;
  for (const char* kind : {"Node", "Pod", "PodGroup", "Queue", "PriorityClass"})
    for (const store::StoredObject& o : store.list(kind)) {
      text += o.json;
      text += "\n---\n";
    }
  model::ClusterObjects objects;
  source::parse_objects(text, "the local store", objects);
  source::complete_objects(objects);
  cache.reset(std::move(objects));
}

void register_all(Bench& b) {
  using benchmark::State;
  auto heavy = [](benchmark::internal::Benchmark* bm) {
    bm->Unit(benchmark::kMillisecond)->Iterations(1)->Repetitions(3)->ReportAggregatesOnly(true);
  };
  heavy(benchmark::RegisterBenchmark("refresh/full_reload_before", [&b](State& st) {
    for (auto _ : st) {
      cache::ClusterCache cache;
      reload_before(*b.store, cache);
      benchmark::DoNotOptimize(cache.generation());
    }
  }));
  heavy(benchmark::RegisterBenchmark("refresh/relist", [&b](State& st) {
    for (auto _ : st) {
      cache::ClusterCache cache;
      serve::LocalCluster cluster(*b.store);
      cluster.refresh(cache);
      benchmark::DoNotOptimize(cache.generation());
    }
  }));
  heavy(benchmark::RegisterBenchmark("refresh/incremental_1pct_pods", [&b](State& st) {
    cache::ClusterCache cache;
    serve::LocalCluster cluster(*b.store);
    cluster.refresh(cache);
    int v = 0;
    for (auto _ : st) {
      st.PauseTiming();
      b.store->apply(b.round[v ^= 1]);
      st.ResumeTiming();
      cluster.refresh(cache);
      benchmark::DoNotOptimize(cache.generation());
    }
  }));
  heavy(benchmark::RegisterBenchmark("cache/replace", [&b](State& st) {
    for (auto _ : st) {
      st.PauseTiming();
      std::vector<cache::ObjectChange> all = b.decoded_all;
      cache::ClusterCache cache;
      st.ResumeTiming();
      cache.replace(std::move(all));
      st.PauseTiming();  // not the destructor
      cache = {};
      st.ResumeTiming();
    }
  }));
  heavy(benchmark::RegisterBenchmark("cache/apply_1pct_pods", [&b](State& st) {
    cache::ClusterCache cache;
    cache.replace(b.decoded_all);
    int v = 0;
    for (auto _ : st) {
      st.PauseTiming();
      std::vector<cache::ObjectChange> changes = b.decoded_round[v ^= 1];
      st.ResumeTiming();
      cache.apply_changes(changes);
    }
  }));
  heavy(benchmark::RegisterBenchmark("cache/snapshot", [&b](State& st) {
    cache::ClusterCache cache;
    cache.replace(b.decoded_all);
    for (auto _ : st) benchmark::DoNotOptimize(cache.snapshot().jobs.size());
  }));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') {
    std::cerr << "usage: scoria_cache_bench CLUSTER.yaml [benchmark flags]\n";
    return 2;
  }
  Bench bench;
  load(bench, argv[1]);
  register_all(bench);
  argv[1] = argv[0];
  int rest = argc - 1;
  benchmark::Initialize(&rest, argv + 1);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
