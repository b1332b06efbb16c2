// What one task's node choice costs allocate (Session::select_node): from
// the class's ChoiceIndex (one node changed since the last task, then the
// sample counted and the best read from the tree) against the scan it
// replaced (every node of the adaptive sample looked at, the best kept).
// Not a test: run by hand, after configuring with -DSCORIA_BUILD_BENCH=ON.
//
//   cmake --build build --target scoria_choice_bench
//   build/bin/scoria_choice_bench --benchmark_repetitions=3 [google benchmark flags]
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "session/choice_index.h"

namespace {

using scoria::session::ChoiceIndex;

struct Leaves {
  std::vector<uint8_t> fits, idle;
  std::vector<double> score;
};

Leaves random_leaves(size_t n) {
  std::mt19937 random(1);
  Leaves l;
  for (size_t i = 0; i < n; ++i) {
    l.fits.push_back(random() % 10 != 0);
    l.idle.push_back(random() % 4 != 0);
    l.score.push_back(static_cast<double>(random() % 1000));
  }
  return l;
}

// Volcano's adaptive sample: 50 - nodes/125 percent of the nodes, at least 100.
size_t sample_of(size_t n) {
  const size_t percent = n / 125 < 45 ? 50 - n / 125 : 5;
  return std::max<size_t>(100, n * percent / 100);
}

void BM_Index(benchmark::State& state) {
  const auto n = static_cast<size_t>(state.range(0));
  const Leaves l = random_leaves(n);
  ChoiceIndex index(n);
  for (size_t i = 0; i < n; ++i) index.set(i, 1, l.fits[i], l.idle[i], l.score[i]);
  const size_t want = sample_of(n);
  size_t cursor = 0;
  uint32_t generation = 2;
  for (auto _ : state) {
    // The node the last task went to changed; then this task's choice.
    const size_t changed = cursor % n;
    index.set(changed, generation++, l.fits[changed], l.idle[changed], l.score[changed] - 1);
    const size_t start = cursor % n;
    const size_t after = index.fit_count(start, n);
    const size_t total = after + index.fit_count(0, start);
    const size_t last =
        want <= after ? index.nth_fit(total - after + want - 1) : index.nth_fit(want - after - 1);
    size_t best = ChoiceIndex::kNone;
    if (last >= start) {
      best = index.best(start, last + 1, true);
    } else {
      best = index.better(index.best(start, n, true), index.best(0, last + 1, true));
    }
    benchmark::DoNotOptimize(best);
    cursor += want;
  }
}

void BM_Scan(benchmark::State& state) {
  const auto n = static_cast<size_t>(state.range(0));
  const Leaves l = random_leaves(n);
  const size_t want = sample_of(n);
  size_t cursor = 0;
  for (auto _ : state) {
    size_t found = 0, best = ChoiceIndex::kNone;
    for (size_t k = 0; k < n && found < want; ++k) {
      const size_t i = (cursor + k) % n;
      if (!l.fits[i]) continue;
      ++found;
      if (l.idle[i] && (best == ChoiceIndex::kNone || l.score[i] > l.score[best])) best = i;
    }
    benchmark::DoNotOptimize(best);
    cursor += want;
  }
}

BENCHMARK(BM_Index)->Arg(1000)->Arg(5000);
BENCHMARK(BM_Scan)->Arg(1000)->Arg(5000);

}  // namespace

BENCHMARK_MAIN();
