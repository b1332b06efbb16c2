#include "metrics/queue_metrics.h"

#include <algorithm>
#include <cmath>

#include <prometheus/gauge.h>

namespace scoria::metrics {

namespace {

using prometheus::BuildGauge;
using prometheus::Family;
using prometheus::Gauge;

Family<Gauge>& gauge(prometheus::Registry& registry, const std::string& name,
                     const std::string& help) {
  return BuildGauge().Name(name).Help(help).Register(registry);
}

bool scalar(const std::string& dim) { return dim != "cpu" && dim != "memory" && dim != "pods"; }

double at(const std::vector<double>& v, size_t d) { return d < v.size() ? v[d] : 0.0; }

// helpers.Share: a part of nothing is all of it, unless it is nothing.
double share_of(double part, double whole) {
  if (whole == 0) return part == 0 ? 0 : 1;
  return part / whole;
}

}  // namespace

QueueMetrics::Resources QueueMetrics::resources(prometheus::Registry& registry,
                                                const std::string& what, const std::string& help) {
  // Volcano's help texts: "<What> CPU count for one queue", ..., except
  // inqueue's, which say what inqueue is.
  if (what == "inqueue") {
    const std::string of = " for admitted but not yet running jobs in one queue";
    return {
        gauge(registry, "volcano_queue_inqueue_milli_cpu", "Inqueue CPU" + of),
        gauge(registry, "volcano_queue_inqueue_memory_bytes", "Inqueue memory" + of),
        gauge(registry, "volcano_queue_inqueue_scalar_resources", "Inqueue scalar resources" + of)};
  }
  return {
      gauge(registry, "volcano_queue_" + what + "_milli_cpu", help + " CPU count for one queue"),
      gauge(registry, "volcano_queue_" + what + "_memory_bytes", help + " memory for one queue"),
      gauge(registry, "volcano_queue_" + what + "_scalar_resources",
            help + " scalar resources for one queue")};
}

QueueMetrics::QueueMetrics(prometheus::Registry& registry)
    : allocated_(resources(registry, "allocated", "Allocated")),
      request_(resources(registry, "request", "Request")),
      deserved_(resources(registry, "deserved", "Deserved")),
      capacity_(resources(registry, "capacity", "Capacity")),
      // Volcano gives the real capacity the capacity family's help texts.
      real_capacity_(resources(registry, "real_capacity", "Capacity")),
      inqueue_(resources(registry, "inqueue", "Inqueue")),
      share_(gauge(registry, "volcano_queue_share", "Share for one queue")),
      weight_(gauge(registry, "volcano_queue_weight", "Weight for one queue")),
      overused_(gauge(registry, "volcano_queue_overused", "If one queue is overused")) {
  for (const char* phase : {"Inqueue", "Pending", "Running", "Unknown", "Completed"}) {
    std::string lower = phase;
    std::transform(lower.begin(), lower.end(), lower.begin(), ::tolower);
    pod_groups_[phase] = &gauge(registry, "volcano_queue_pod_group_" + lower + "_count",
                                std::string("The number of ") + phase + " PodGroup in this queue");
  }
}

void QueueMetrics::set(Resources& family, const std::string& queue,
                       const std::vector<double>& values, const std::vector<std::string>& dims) {
  const prometheus::Labels labels{{"queue_name", queue}};
  family.cpu.Add(labels).Set(at(values, SCORIA_DIM_CPU));
  family.memory.Add(labels).Set(at(values, SCORIA_DIM_MEMORY));
  std::vector<std::string>& known = scalars_[queue];
  for (size_t d = 0; d < dims.size(); ++d) {
    if (!scalar(dims[d])) continue;
    const double v = at(values, d);
    const bool seen = std::find(known.begin(), known.end(), dims[d]) != known.end();
    // A resource the queue never had stays unlisted; one it had reads 0.
    if (v == 0 && !seen) continue;
    if (!seen) known.push_back(dims[d]);
    family.scalar.Add({{"queue_name", queue}, {"resource", dims[d]}}).Set(v);
  }
}

void QueueMetrics::observe(const cycle::Outcome& outcome, const std::vector<std::string>& dims) {
  for (auto& [queue, seen] : live_) seen = false;
  std::map<std::string, std::map<std::string, double>> groups;  // queue -> phase -> count
  for (const auto& g : outcome.pod_groups) ++groups[g.queue][model::phase_name(g.phase)];
  for (const auto& q : outcome.queues) {
    live_[q.name] = true;
    const prometheus::Labels labels{{"queue_name", q.name}};
    set(allocated_, q.name, q.allocated, dims);
    set(request_, q.name, q.request, dims);
    set(inqueue_, q.name, q.inqueue, dims);
    if (!q.deserved.empty()) {
      set(deserved_, q.name, q.deserved, dims);
      // Proportion's share: the largest of allocated / deserved over the
      // dimensions deserved names (cpu and memory always).
      double share = 0;
      for (size_t d = 0; d < dims.size(); ++d) {
        if (dims[d] == "pods" || (scalar(dims[d]) && at(q.deserved, d) == 0)) continue;
        share = std::max(share, share_of(at(q.allocated, d), at(q.deserved, d)));
      }
      share_.Add(labels).Set(share);
    }
    // Capacity where the queue's spec sets one.
    if (std::any_of(q.capability.begin(), q.capability.end(),
                    [](double v) { return std::isfinite(v); })) {
      std::vector<double> capability = q.capability;
      for (double& v : capability)
        if (!std::isfinite(v)) v = 0;
      set(capacity_, q.name, capability, dims);
    }
    // The real capability a plugin (capacity) reported this session; one
    // that did not keeps what was last shown, as Volcano's gauges do. No
    // limit reads +Inf: Volcano writes math.MaxFloat64, which this
    // exposition's 16 digits would round past the largest double, and a
    // scrape would refuse it.
    if (!q.real_capability.empty()) set(real_capacity_, q.name, q.real_capability, dims);
    weight_.Add(labels).Set(q.weight);
    if (q.overused) overused_.Add(labels).Set(*q.overused ? 1 : 0);
    const auto& by_phase = groups[q.name];
    for (auto& [phase, family] : pod_groups_) {
      const auto it = by_phase.find(phase);
      family->Add(labels).Set(it == by_phase.end() ? 0 : it->second);
    }
  }
  for (auto it = live_.begin(); it != live_.end();) {
    if (it->second) {
      ++it;
      continue;
    }
    forget(it->first);
    it = live_.erase(it);
  }
}

void QueueMetrics::forget(const std::string& queue) {
  const prometheus::Labels labels{{"queue_name", queue}};
  const auto drop = [&](Family<Gauge>& family, const prometheus::Labels& l) {
    if (family.Has(l)) family.Remove(&family.Add(l));
  };
  for (Resources* r :
       {&allocated_, &request_, &deserved_, &capacity_, &real_capacity_, &inqueue_}) {
    drop(r->cpu, labels);
    drop(r->memory, labels);
    for (const std::string& resource : scalars_[queue])
      drop(r->scalar, {{"queue_name", queue}, {"resource", resource}});
  }
  for (Family<Gauge>* f : {&share_, &weight_, &overused_}) drop(*f, labels);
  for (auto& [phase, family] : pod_groups_) drop(*family, labels);
  scalars_.erase(queue);
}

}  // namespace scoria::metrics
