// `scoria serve`: runs the scheduler as a service over the local store.
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <utility>

#include "cli/commands.h"
#include "cli/feature_gates.h"
#include "cli/flag_values.h"
#include "cli/sharding_flags.h"
#include "cli/volcano_flags.h"
#include "kube/client_config.h"
#include "log/log.h"
#include "model/error.h"
#include "model/go_duration.h"
#include "serve/service.h"

namespace scoria::cli {

namespace {

constexpr const char* kServeUsage =
    "usage: scoria serve --config CONF [--state-dir DIR] [--listen ADDR[:PORT]] [--port N]\n"
    "                    [--token-file FILE] [--plugin-dir DIR]... [--allow-writable-plugins]\n"
    "                    [--tls-cert-file CERT --tls-private-key-file KEY]\n"
    "                    [--dump-dir DIR] [--schedule-period MS] [--schedule-on-change true]\n"
    "                    [--strict-fields] [-v N]\n"
    "                    [--header-timeout 10s] [--body-timeout 30s] [--idle-timeout 60s]\n"
    "                    [--max-connections N] [--watch-buffer 4Mi] [--watch-memory 256Mi]\n"
    "                    [--watch-bookmark-interval 1m] [--watchdog-periods 10]\n"
    "                    [--source local|kubernetes]  (default: kubernetes given --kubeconfig\n"
    "                    or --master or in a pod, else local)\n"
    "  The kubernetes source (Volcano's flags):\n"
    "                    [--kubeconfig FILE [--context NAME] | --master URL | in-cluster]\n"
    "                    [--scheduler-name volcano]... [--kube-api-qps 2000] [--kube-api-burst "
    "2000]\n"
    "                    [--leader-elect] [--leader-elect-resource-namespace volcano-system]\n"
    "                    [--leader-elect-resource-name NAME] [--lock-object-namespace NS]\n"
    "                    [--leader-elect-lease-duration 15s] [--leader-elect-renew-deadline 10s]\n"
    "                    [--leader-elect-retry-period 2s]\n"
    "  Node sampling (as Volcano's flags; override the config's keys):\n"
    "                    [--minimum-feasible-nodes 100] [--minimum-percentage-nodes-to-find 5]\n"
    "                    [--percentage-nodes-to-find 0]\n"
    "  Node shards (several instances on one cluster, each on its NodeShard's nodes):\n"
    "                    [--shard-name NAME] (hard mode)\n"
    "                    [--scheduler-sharding-mode none|hard|soft]\n"
    "                    [--scheduler-sharding-name volcano]\n"
    "  Queue admission gates (Volcano's feature gate):\n"
    "                    [--feature-gates SchedulingGatesQueueAdmission=true]\n"
    "  Volcano's other vc-scheduler flags are taken as Scoria's (--scheduler-conf is --config,\n"
    "  --listen-address is --listen, --plugins-dir is --plugin-dir, --cache-dump-dir is\n"
    "  --dump-dir), accepted where they change nothing here (--enable-healthz,\n"
    "  --enable-metrics, --logtostderr, --node-worker-threads, ...: the log says why), or\n"
    "  refused saying what to use instead (--healthz-address, --default-queue, ...).\n"
    "  --schedule-period takes Go's spelling (1s, 500ms) or milliseconds.\n"
    "  Without --state-dir the store is kept in $STATE_DIRECTORY (systemd's StateDirectory=),\n"
    "  else $XDG_STATE_HOME/scoria (by default ~/.local/state/scoria).\n"
    "  The bearer token for writes may also come from the environment (SCORIA_TOKEN);\n"
    "  it is required when --listen is not a loopback address.\n"
    "  --max-connections 0 (the default) derives the limit from the file descriptor limit.\n"
    "  With --tls-cert-file (PEM, the chain after the certificate) and --tls-private-key-file\n"
    "  the API is served over TLS (1.2 and up); both files are read again for new\n"
    "  connections when they change, and a pair that does not load keeps the last good one.\n"
    "  An object written with fields its kind does not have (a mistyped one) is taken\n"
    "  without them and a warning, as the API server takes it; --strict-fields refuses it\n"
    "  instead. Either is what a request naming no fieldValidation (Strict, Warn, Ignore)\n"
    "  gets; kubectl names one (its --validate).\n";

std::string read_token(const std::string& file) {
  std::ifstream in(file);
  if (!in) throw InputError(file + ": cannot read the token file; check its path and mode");
  std::stringstream text;
  text << in.rdbuf();
  std::string token = text.str();
  while (!token.empty() && (token.back() == '\n' || token.back() == '\r' || token.back() == ' '))
    token.pop_back();
  if (token.empty()) throw InputError(file + ": the token file is empty");
  return token;
}

/// Where the store is kept when --state-dir is not given: systemd's
/// StateDirectory= (the first, if it names several), else the XDG state
/// directory; never the current directory.
std::filesystem::path default_state_dir() {
  if (const char* systemd = std::getenv("STATE_DIRECTORY"); systemd != nullptr && *systemd) {
    const std::string_view dirs(systemd);
    return std::filesystem::path(std::string(dirs.substr(0, dirs.find(':'))));
  }
  if (const char* xdg = std::getenv("XDG_STATE_HOME"); xdg != nullptr && *xdg == '/')
    return std::filesystem::path(xdg) / "scoria";
  if (const char* home = std::getenv("HOME"); home != nullptr && *home == '/')
    return std::filesystem::path(home) / ".local/state/scoria";
  throw InputError(
      "no state directory: give --state-dir DIR (or run under systemd with StateDirectory=, or "
      "set XDG_STATE_HOME)");
}

bool parse_bool(std::string_view flag, const std::string& v) {
  if (v == "true" || v == "1") return true;
  if (v == "false" || v == "0") return false;
  throw InputError(std::string(flag) + "=" + v + ": give true or false");
}

// Where the API server is: --master, else --kubeconfig (or $KUBECONFIG),
// else the pod's service account, as client-go's BuildConfigFromFlags.
kube::ClientConfig client_config(const std::string& kubeconfig, const std::string& context,
                                 const std::string& master) {
  std::string file = kubeconfig;
  if (file.empty())
    if (const char* env = std::getenv("KUBECONFIG"); env != nullptr) file = env;
  if (!file.empty()) {
    kube::ClientConfig c = kube::load_kubeconfig(file, context);
    if (!master.empty() && !kube::parse_server_url(master, c))
      throw InputError("--master " + master + ": give a URL, https://host:port");
    return c;
  }
  if (!master.empty()) {
    kube::ClientConfig c;
    if (!kube::parse_server_url(master, c))
      throw InputError("--master " + master + ": give a URL, https://host:port");
    c.origin = "--master " + master;
    return c;
  }
  if (auto in_cluster = kube::in_cluster_config()) return *in_cluster;
  throw InputError(
      "--source kubernetes needs the API server: --kubeconfig FILE, --master URL, or run in a "
      "pod with a service account");
}

// Why the source is Kubernetes when --source does not say: the flags
// naming an API server, or a pod's environment (client-go's in-cluster
// config); empty when nothing implies it. KUBECONFIG alone does not: a
// developer's shell often has it.
std::string kubernetes_implied(const std::string& kubeconfig, const std::string& master) {
  if (!kubeconfig.empty()) return "--kubeconfig was given";
  if (!master.empty()) return "--master was given";
  const char* host = std::getenv("KUBERNETES_SERVICE_HOST");
  const char* port = std::getenv("KUBERNETES_SERVICE_PORT");
  if (host != nullptr && *host != '\0' && port != nullptr && *port != '\0')
    return "running in a pod: KUBERNETES_SERVICE_HOST is set";
  return {};
}

// A Volcano flag that is not an alias: accepted (its note logged) or
// refused with what to use instead. A boolean one refuses only the value
// that would change something.
void take_volcano_flag(std::string_view flag, const VolcanoFlag& volcano, const std::string& v) {
  const std::string said = std::string(flag) + " (Volcano's flag): ";
  if (!volcano.takes_value) {
    const bool on = parse_bool(flag, v);
    if (volcano.is == VolcanoFlag::Is::Refused && !on) return;  // Volcano's default: nothing to do
    if (volcano.is == VolcanoFlag::Is::Refused || (volcano.false_refused && !on))
      throw InputError(said + "not supported: " + std::string(volcano.note));
  } else if (volcano.is == VolcanoFlag::Is::Refused) {
    throw InputError(said + "not supported: " + std::string(volcano.note));
  }
  log::write(log::kInfo, "serve", said + "accepted; " + std::string(volcano.note));
}

serve::ServeOptions parse_serve_args(std::span<const std::string_view> args) {
  serve::ServeOptions o;
  std::string kubeconfig, context, master;
  bool named = false;  // --scheduler-name given: the default is replaced
  ShardingFlags sharding;
  FeatureGates gates;
  std::optional<bool> source;  // --source given: kubernetes or not
  if (const char* env = std::getenv("SCORIA_TOKEN")) o.token = env;
  for (size_t i = 0; i < args.size(); ++i) {
    // --name value, or --name=value (-v=3) as Kubernetes manifests write flags.
    std::string_view a = args[i];
    std::optional<std::string> inline_value;
    if (a == "2>&1") {
      // Volcano's manifests pass the shell's redirection as an argument.
      log::write(log::kInfo, "serve", "argument 2>&1 ignored: Scoria logs to standard error");
      continue;
    }
    if (const size_t eq = a.find('='); a.starts_with("-") && eq != std::string_view::npos) {
      inline_value = std::string(a.substr(eq + 1));
      a = a.substr(0, eq);
    }
    const auto value = [&]() -> std::string {
      if (inline_value) return *std::exchange(inline_value, std::nullopt);
      if (i + 1 >= args.size()) throw InputError(std::string(a) + " needs a value");
      return std::string(args[++i]);
    };
    if (const auto volcano = volcano_flag(a)) {
      if (volcano->is == VolcanoFlag::Is::Alias) {
        a = volcano->means;
      } else {
        take_volcano_flag(a, *volcano, volcano->takes_value || inline_value ? value() : "true");
        continue;
      }
    }
    if (sharding.take(a, value) || gates.take(a, value)) {
      continue;
    } else if (a == "--config") {
      o.config = value();
    } else if (a == "--state-dir") {
      o.state_dir = value();
    } else if (a == "--listen") {
      // ADDR, or ADDR:PORT ([ADDR]:PORT for IPv6).
      std::string v = value();
      const size_t colon = v.rfind(':');
      const bool bracketed = v.starts_with('[');
      if (colon != std::string::npos && (bracketed || v.find(':') == colon)) {
        const std::string port = v.substr(colon + 1);
        const int n = std::atoi(port.c_str());
        if (n < 0 || n > 65535 || std::to_string(n) != port)
          throw InputError("--listen " + v + ": the port must be a number from 0 to 65535");
        o.port = static_cast<unsigned short>(n);
        v = v.substr(0, colon);
        if (bracketed && v.size() >= 2) v = v.substr(1, v.size() - 2);
      }
      // ":8080", as Go writes every interface (Volcano's --listen-address).
      o.address = v.empty() ? "0.0.0.0" : v;
    } else if (a == "--port") {
      const std::string v = value();
      const int port = std::atoi(v.c_str());
      if (port < 0 || port > 65535 || std::to_string(port) != v)
        throw InputError("--port " + v + ": give a port number from 0 to 65535");
      o.port = static_cast<unsigned short>(port);
    } else if (a == "--token-file") {
      o.token = read_token(value());
    } else if (a == "--plugin-dir") {
      o.plugin_dirs.emplace_back(value());
    } else if (a == "--allow-writable-plugins") {
      o.allow_writable_plugins = true;
    } else if (a == "--strict-fields") {
      o.field_validation = schema::FieldValidation::kStrict;
    } else if (a == "--dump-dir") {
      o.dump_dir = value();
    } else if (a == "--schedule-period") {
      // Go's spelling as Volcano takes it (1s, 500ms), or bare milliseconds.
      const std::string v = value();
      const long long ms = std::atoll(v.c_str());
      if (ms > 0 && std::to_string(ms) == v)
        o.period_ms = ms;
      else if (const auto d = model::parse_go_duration(v); d && *d >= std::chrono::milliseconds(1))
        o.period_ms = std::chrono::duration_cast<std::chrono::milliseconds>(*d).count();
      else
        throw InputError("--schedule-period " + v +
                         ": give a duration such as 1s or 500ms (Go's spelling), or milliseconds; "
                         "at least 1ms");
    } else if (a == "--minimum-feasible-nodes") {
      o.nodes_to_find.min_nodes = static_cast<int64_t>(parse_count(a, value(), 0, 1'000'000'000));
    } else if (a == "--minimum-percentage-nodes-to-find") {
      o.nodes_to_find.min_percentage = static_cast<int64_t>(parse_count(a, value(), 0, 100));
    } else if (a == "--percentage-nodes-to-find") {
      o.nodes_to_find.percentage = static_cast<int64_t>(parse_count(a, value(), 0, 100));
    } else if (a == "--version") {
      std::cout << version_line() << "\n";
      std::exit(0);
    } else if (a == "--schedule-on-change") {
      const std::string v = value();
      if (v != "true" && v != "false")
        throw InputError("--schedule-on-change " + v +
                         ": use true (a write starts a session soon, the default) or false "
                         "(sessions only every schedule period, as Volcano runs them)");
      o.schedule_on_change = v == "true";
    } else if (a == "--header-timeout") {
      o.http.header_timeout = parse_duration(a, value());
    } else if (a == "--body-timeout") {
      o.http.body_timeout = parse_duration(a, value());
    } else if (a == "--idle-timeout") {
      o.http.idle_timeout = parse_duration(a, value());
    } else if (a == "--tls-cert-file") {
      o.http.tls_cert_file = value();
    } else if (a == "--tls-private-key-file") {
      o.http.tls_key_file = value();
    } else if (a == "--max-connections") {
      o.http.max_connections = parse_count(a, value(), 0, 1'000'000);
    } else if (a == "--watch-buffer") {
      o.http.stream_buffer = parse_count(a, value(), 4096, uint64_t{1} << 32, true);
    } else if (a == "--watch-memory") {
      o.watch_memory = parse_count(a, value(), 4096, uint64_t{1} << 40, true);
    } else if (a == "--watch-bookmark-interval") {
      o.bookmark_interval = parse_duration(a, value());
    } else if (a == "--watchdog-periods") {
      o.watchdog_periods = static_cast<int64_t>(parse_count(a, value(), 2, 1'000'000));
    } else if (a == "--source") {
      const std::string v = value();
      if (v != "local" && v != "kubernetes")
        throw InputError("--source " + v +
                         ": use local (the store) or kubernetes; without --source it is "
                         "kubernetes when given --kubeconfig or --master or run in a pod, else "
                         "local");
      source = v == "kubernetes";
    } else if (a == "--kubeconfig") {
      kubeconfig = value();
    } else if (a == "--context") {
      context = value();
    } else if (a == "--master") {
      master = value();
    } else if (a == "--scheduler-name") {
      if (!named) o.kube.scheduler_names.clear();
      named = true;
      o.kube.scheduler_names.push_back(value());
    } else if (a == "--kube-api-qps") {
      o.kube.qps = static_cast<double>(parse_count(a, value(), 1, 1'000'000));
    } else if (a == "--kube-api-burst") {
      o.kube.burst = static_cast<double>(parse_count(a, value(), 1, 1'000'000));
    } else if (a == "--leader-elect") {
      o.kube.leader_elect = !inline_value || parse_bool(a, value());
    } else if (a == "--lock-object-namespace" || a == "--leader-elect-resource-namespace") {
      o.kube.election.lease_namespace = value();
    } else if (a == "--leader-elect-resource-name") {
      o.kube.election.lease_name = value();
    } else if (a == "--leader-elect-lease-duration") {
      o.kube.election.lease_duration = parse_duration(a, value());
    } else if (a == "--leader-elect-renew-deadline") {
      o.kube.election.renew_deadline = parse_duration(a, value());
    } else if (a == "--leader-elect-retry-period") {
      o.kube.election.retry_period = parse_duration(a, value());
    } else if (a == "-v" || a == "--v") {
      log::set_verbosity(std::atoi(value().c_str()));
    } else if (a == "-h" || a == "--help") {
      std::cout << kServeUsage;
      std::exit(0);
    } else {
      throw InputError("unknown option " + std::string(a) + "\n" + kServeUsage);
    }
  }
  if (o.config.empty()) throw InputError(std::string("--config is required\n") + kServeUsage);
  o.sharding = sharding.sharding();
  o.queue_admission_gates = gates.queue_admission_gates();
  o.kube.node_shards = o.sharding.mode != model::ShardingMode::None;
  if (o.state_dir.empty()) o.state_dir = default_state_dir();
  // Without --source, where a Volcano scheduler would find its API server
  // (its flags, or the pod it runs in), so is Scoria's: a Volcano
  // Deployment given Scoria's image schedules its cluster, not an empty
  // local store.
  if (source) {
    o.kubernetes = *source;
  } else if (const std::string why = kubernetes_implied(kubeconfig, master); !why.empty()) {
    o.kubernetes = true;
    log::write(log::kInfo, "serve",
               "source: kubernetes (" + why + "); --source local keeps the local store");
  }
  if (!o.kubernetes) {
    if (!kubeconfig.empty() || !master.empty() || o.kube.leader_elect)
      log::write(log::kInfo, "serve",
                 "--kubeconfig, --master and --leader-elect apply to --source kubernetes; the "
                 "local source runs alone");
    return o;
  }
  o.kube.client = client_config(kubeconfig, context, master);
  const auto& e = o.kube.election;
  if (o.kube.leader_elect &&
      !(e.retry_period < e.renew_deadline && e.renew_deadline < e.lease_duration))
    throw InputError(
        "leader election needs --leader-elect-retry-period < --leader-elect-renew-deadline < "
        "--leader-elect-lease-duration (Volcano's defaults: 2s, 10s, 15s)");
  return o;
}

}  // namespace

int serve(std::span<const std::string_view> args, const plugin::PluginRegistry::Trial& trial) {
  // A start that fails is one line naming the cause, and exit 2 (systemd
  // and scripts tell it from a failure while serving, exit 1).
  std::optional<serve::Service> service;
  try {
    serve::ServeOptions options = parse_serve_args(args);
    options.plugin_trial = trial;
    service.emplace(std::move(options));
  } catch (const std::exception& e) {
    std::cerr << "scoria: " << e.what() << "\n";
    return 2;
  }
  try {
    return service->run();
  } catch (const std::exception& e) {
    std::cerr << "scoria: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace scoria::cli
