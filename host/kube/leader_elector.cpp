#include "kube/leader_elector.h"

#include <unistd.h>

#include <ctime>
#include <random>

#include "http/client.h"
#include "log/log.h"

namespace scoria::kube {

namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr std::string_view kElectionLog = "leader-election";

// A MicroTime, as Lease times are written: RFC 3339 with microseconds, UTC.
std::string micro_time(std::chrono::system_clock::time_point t) {
  const auto us =
      std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch()).count();
  const std::time_t seconds = static_cast<std::time_t>(us / 1000000);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char out[64];
  std::snprintf(out, sizeof out, "%04d-%02d-%02dT%02d:%02d:%02d.%06lldZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<long long>(us % 1000000));
  return out;
}

std::string default_identity() {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0) std::snprintf(host, sizeof host, "scoria");
  // Two processes on one host must not share an identity (client-go adds
  // a UUID for the same reason).
  std::random_device random;
  char suffix[20];
  std::snprintf(suffix, sizeof suffix, "_%08x%08x", random(), random());
  return std::string(host) + suffix;
}

}  // namespace

LeaderElector::LeaderElector(ApiClient& client, LeaderElectionOptions options)
    : client_(client), options_(std::move(options)) {
  if (options_.identity.empty()) options_.identity = default_identity();
}

LeaderElector::~LeaderElector() { stop(); }

void LeaderElector::start() {
  connection_ = client_.connect();
  thread_ = std::thread([this] { run(); });
}

void LeaderElector::stop() {
  if (stop_.exchange(true)) return;
  if (connection_) connection_->cancel();
  if (thread_.joinable()) thread_.join();
  if (was_leading_) release();
}

void LeaderElector::release() {
  // Hand the Lease over at once rather than make a standby wait it out
  // (client-go's ReleaseOnCancel): an empty holder, a one-second duration.
  const std::string path = http::path_of({"apis", "coordination.k8s.io", "v1", "namespaces",
                                          options_.lease_namespace, "leases", options_.lease_name});
  try {
    std::unique_ptr<Connection> c = client_.connect();
    const Response got = c->request("GET", path, "", "", std::chrono::seconds(2));
    if (got.status != 200) return;
    json lease = parse_answer(got.body);
    if (!lease.is_object() || !lease["spec"].is_object() ||
        lease["spec"].value("holderIdentity", "") != options_.identity)
      return;
    lease["spec"]["holderIdentity"] = "";
    lease["spec"]["leaseDurationSeconds"] = 1;
    const Response put =
        c->request("PUT", path, lease.dump(), "application/json", std::chrono::seconds(2));
    if (put.status == 200)
      log::write(log::kInfo, kElectionLog, options_.identity + " released the Lease");
  } catch (const std::exception& e) {
    log::write(log::kInfo, kElectionLog, std::string("the Lease was not released: ") + e.what());
  }
}

std::string LeaderElector::holder() const {
  std::lock_guard lock(mutex_);
  return holder_;
}

void LeaderElector::run() {
  std::minstd_rand random(std::random_device{}());
  Clock::time_point renewed{};
  while (!stop_) {
    bool held = false;
    try {
      held = try_acquire_or_renew();
    } catch (const Cancelled&) {
      break;
    } catch (const std::exception& e) {
      log::write(log::kWarning, kElectionLog,
                 std::string("the Lease cannot be reached: ") + e.what());
    }
    const Clock::time_point now = Clock::now();
    if (held) {
      renewed = now;
      if (!leading_.exchange(true))
        log::write(log::kInfo, kElectionLog,
                   options_.identity + " leads (Lease " + options_.lease_namespace + "/" +
                       options_.lease_name + ")");
    } else if (leading_ && now - renewed > options_.renew_deadline) {
      leading_ = false;
      log::write(log::kError, kElectionLog,
                 options_.identity + " could not renew the Lease within " +
                     std::to_string(options_.renew_deadline.count()) +
                     "ms and stopped leading; scheduling stops until it leads again");
    }
    // Candidates and leader alike try every retry period, with client-go's
    // jitter (up to 1.2 times longer) for candidates.
    std::uniform_real_distribution<double> jitter(1.0, leading_ ? 1.0 : 1.2);
    const Clock::time_point until =
        now + std::chrono::duration_cast<Clock::duration>(options_.retry_period * jitter(random));
    while (!stop_ && Clock::now() < until) {
      if (leading_ && Clock::now() - renewed > options_.renew_deadline) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  was_leading_ = leading_.exchange(false);
}

bool LeaderElector::try_acquire_or_renew() {
  const std::string path = http::path_of({"apis", "coordination.k8s.io", "v1", "namespaces",
                                          options_.lease_namespace, "leases", options_.lease_name});
  // A renewal must end before the renew deadline could pass.
  const auto timeout = std::max<Clock::duration>(std::chrono::milliseconds(200),
                                                 options_.renew_deadline - options_.retry_period);
  const auto now_wall = std::chrono::system_clock::now();
  const int duration_s = static_cast<int>(
      std::chrono::duration_cast<std::chrono::seconds>(options_.lease_duration).count());
  if (!client_.admit(stop_)) throw Cancelled();
  const Response got = connection_->request("GET", path, "", "", timeout);
  if (got.status == 404) {
    const json lease = {
        {"apiVersion", "coordination.k8s.io/v1"},
        {"kind", "Lease"},
        {"metadata", {{"name", options_.lease_name}, {"namespace", options_.lease_namespace}}},
        {"spec",
         {{"holderIdentity", options_.identity},
          {"leaseDurationSeconds", duration_s},
          {"acquireTime", micro_time(now_wall)},
          {"renewTime", micro_time(now_wall)},
          {"leaseTransitions", 0}}}};
    if (!client_.admit(stop_)) throw Cancelled();
    const Response made =
        connection_->request("POST",
                             http::path_of({"apis", "coordination.k8s.io", "v1", "namespaces",
                                            options_.lease_namespace, "leases"}),
                             lease.dump(), "application/json", timeout);
    if (made.status != 201 && made.status != 200) return false;
    std::lock_guard lock(mutex_);
    holder_ = options_.identity;
    observed_record_ = lease["spec"].dump();
    observed_at_ = Clock::now();
    return true;
  }
  if (got.status != 200) throw ApiError("reading the Lease", got);
  json lease = parse_answer(got.body);
  if (!lease.is_object()) throw TransportError("the Lease is not JSON");
  json& spec = lease["spec"];
  if (!spec.is_object()) spec = json::object();
  const std::string holder = spec.value("holderIdentity", "");
  {
    std::lock_guard lock(mutex_);
    holder_ = holder;
    const std::string record = spec.dump();
    if (record != observed_record_) {
      observed_record_ = record;
      observed_at_ = Clock::now();
    }
    // Held by another that renewed within the lease duration (as we saw it).
    if (!holder.empty() && holder != options_.identity &&
        Clock::now() < observed_at_ + options_.lease_duration)
      return false;
  }
  const bool ours = holder == options_.identity;
  spec["holderIdentity"] = options_.identity;
  spec["leaseDurationSeconds"] = duration_s;
  spec["renewTime"] = micro_time(now_wall);
  if (!ours) {
    spec["acquireTime"] = micro_time(now_wall);
    spec["leaseTransitions"] = spec.value("leaseTransitions", 0) + (holder.empty() ? 0 : 1);
  }
  if (!client_.admit(stop_)) throw Cancelled();
  // The resourceVersion read makes this conditional: two candidates racing
  // for an expired Lease cannot both win.
  const Response put = connection_->request("PUT", path, lease.dump(), "application/json", timeout);
  if (put.status != 200) return false;
  std::lock_guard lock(mutex_);
  holder_ = options_.identity;
  observed_record_ = spec.dump();
  observed_at_ = Clock::now();
  return true;
}

}  // namespace scoria::kube
