#include "cli/volcano_flags.h"

#include <array>
#include <utility>

namespace scoria::cli {

namespace {

using Is = VolcanoFlag::Is;

// cmd/scheduler/app/options/options.go at Volcano HEAD, and klog's flags.
constexpr std::array<std::pair<std::string_view, VolcanoFlag>, 26> kFlags = {{
    {"--scheduler-conf", {Is::Alias, "--config", "", true}},
    {"--listen-address", {Is::Alias, "--listen", "", true}},
    {"--plugins-dir", {Is::Alias, "--plugin-dir", "", true}},
    {"--cache-dump-dir", {Is::Alias, "--dump-dir", "", true}},
    {"--enable-healthz",
     {Is::Accepted, "",
      "/healthz and /readyz are always served, on the --listen address (Volcano's "
      "--healthz-address is not used: point the probes at the --listen port)",
      false}},
    {"--enable-metrics",
     {Is::Accepted, "", "/metrics is always served, on the --listen address", false}},
    {"--logtostderr",
     {Is::Accepted, "",
      "Scoria always logs to standard error (let journald or the container runtime keep the "
      "log)",
      false, true}},
    {"--alsologtostderr", {Is::Accepted, "", "Scoria always logs to standard error", false}},
    {"--cache-dumper",
     {Is::Accepted, "", "SIGUSR2 always dumps the cache (to --dump-dir, else the state directory)",
      false}},
    {"--priority-class",
     {Is::Accepted, "", "PriorityClasses are always honoured (as Volcano's default, true)", false,
      true}},
    {"--csi-storage",
     {Is::Accepted, "",
      "CSIStorageCapacity objects are always read, and honoured for the drivers whose CSIDriver "
      "says storageCapacity: true, as kube-scheduler does",
      false}},
    {"--node-worker-threads",
     {Is::Accepted, "",
      "node events are applied to the cache in order on the source's thread; the count does not "
      "apply",
      true}},
    {"--gate-removal-worker-num",
     {Is::Accepted, "",
      "the queue-allocation gates a session lifts are patched by the writer's threads, beside "
      "its binds; the count does not apply",
      true}},
    {"--resync-period",
     {Is::Accepted, "",
      "Scoria's watches relist only when the API server says 410 Gone, as client-go does with "
      "resync 0",
      true}},
    {"--resource-sync-timeout",
     {Is::Accepted, "", "scheduling starts once every watched kind has been listed", true}},
    {"--gate-removal-worker-num",
     {Is::Accepted, "", "Scoria removes no scheduling gates; the count does not apply", true}},
    {"--healthz-address",
     {Is::Refused, "",
      "Scoria serves /healthz and /readyz on the --listen address (with /metrics and the API); "
      "drop --healthz-address and point the probes at the --listen port",
      true}},
    {"--log-dir",
     {Is::Refused, "",
      "Scoria logs to standard error only; let journald or the container runtime keep the log",
      true}},
    {"--log-file",
     {Is::Refused, "",
      "Scoria logs to standard error only; let journald or the container runtime keep the log",
      true}},
    {"--default-queue",
     {Is::Refused, "",
      "jobs that name no queue go to the queue named default; name the queue on the PodGroup "
      "(spec.queue) or the pod (annotation scheduling.volcano.sh/queue-name)",
      true}},
    {"--ca-cert-file",
     {Is::Accepted, "",
      "the API is served with --tls-cert-file and --tls-private-key-file; Volcano's "
      "--ca-cert-file changes nothing on its own server either (it sets the server's RootCAs, "
      "which a server does not read)",
      true}},
    {"--enable-pprof",
     {Is::Refused, "", "there is no pprof in a C++ service; profile with perf", false}},
    {"--node-selector",
     {Is::Refused, "",
      "Scoria schedules onto every node; keep pods off nodes with taints, or send them with "
      "nodeSelector or node affinity",
      true}},
    {"--ignored-provisioners",
     {Is::Refused, "",
      "Scoria counts every CSI driver's volumes against the node's CSINode attach limit, as "
      "kube-scheduler's NodeVolumeLimits does; drop the flag (or lift the driver's limit in its "
      "CSINode)",
      true}},
    {"--disable-default-scheduler-config",
     {Is::Refused, "",
      "Scoria never falls back to a default config: a config that does not load stops the start "
      "(and a reload keeps the last good one)",
      false}},
    {"--log-flush-frequency", {Is::Accepted, "", "every log line is written at once", true}},
}};

}  // namespace

std::optional<VolcanoFlag> volcano_flag(std::string_view name) {
  for (const auto& [flag, what] : kFlags)
    if (flag == name) return what;
  return std::nullopt;
}

}  // namespace scoria::cli
