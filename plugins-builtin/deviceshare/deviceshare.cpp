// The deviceshare plugin (Volcano's deviceshare): GPUs shared between pods.
//
//   gpushare (deviceshare.GPUSharingEnable / GPUNumberEnable): a node's
//     volcano.sh/gpu-memory split evenly over its volcano.sh/gpu-number
//     cards; a pod's volcano.sh/gpu-memory must fit the free memory of one
//     card (the lowest id with room), or its volcano.sh/gpu-number must find
//     that many idle cards. The cards are written on the pod as
//     volcano.sh/gpu-index (and volcano.sh/predicate-time).
//   vGPU (deviceshare.VGPUEnable): the cards a node's vGPU device plugin
//     registers in volcano.sh/node-vgpu-register, each shared by pods within
//     its memory, its pod count and 100% of its cores; a container's
//     volcano.sh/vgpu-number cards, each with volcano.sh/vgpu-memory and
//     volcano.sh/vgpu-cores, are chosen card by card in the order of
//     deviceshare.SchedulePolicy (binpack: fullest first; spread: emptiest
//     first) and written on the pod as volcano.sh/vgpu-ids-new and the
//     annotations Volcano's vGPU device plugin reads.
//   GPU exclusivity (deviceshare.GPUExclusiveRules, vGPU only): a pod
//     carrying every label of a rule takes no card that another pod of the
//     same rule holds on the node (gpu_exclusive.h).
//
// Each session the cards are counted afresh from the node and the cards the
// pods on it hold (their gpu-index / vgpu-ids-new annotations); allocate and
// deallocate events keep them current, and the choice reaches the pod
// through the host's bind annotations (ABI 1.6), written with the binding.
// Whole-card nvidia.com/gpu is a plain extended resource and not ours.
// Ascend NPUs are not supported.
#include <scoria/scoria.h>
#include <scoria/scoria.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "gpu_exclusive.h"
#include "gpu_share.h"
#include "request.h"
#include "vgpu.h"

namespace {

using scoria::api;
using scoria::log_line;
namespace ds = scoria_deviceshare;

constexpr const char* kPolicies[] = {"binpack", "spread", nullptr};
constexpr std::string_view kGroupNameKey = "scheduling.k8s.io/group-name";
constexpr std::string_view kVolcanoGroupNameKey = "scheduling.volcano.sh/group-name";
constexpr std::string_view kTaskIndexLabel = "volcano.sh/task-index";

constexpr scoria_arg_spec kArgs[] = {
    scoria::declare_arg(SCORIA_ARG_BOOL, "deviceshare.GPUSharingEnable", "false",
                        "share GPUs by memory: volcano.sh/gpu-memory on one card"),
    scoria::declare_arg(SCORIA_ARG_BOOL, "deviceshare.GPUNumberEnable", "false",
                        "whole idle GPUs by count: volcano.sh/gpu-number"),
    scoria::declare_arg(SCORIA_ARG_BOOL, "deviceshare.VGPUEnable", "false",
                        "vGPU sharing (volcano.sh/vgpu-number, -memory, -cores) on the cards "
                        "nodes register in volcano.sh/node-vgpu-register"),
    scoria::declare_arg(SCORIA_ARG_BOOL, "deviceshare.NodeLockEnable", "false",
                        "accepted, no effect: Scoria is the only scheduler writing the cards"),
    scoria::declare_arg(SCORIA_ARG_BOOL, "deviceshare.AscendMindClusterVNPUEnable", "false",
                        "accepted, no effect: Ascend NPUs are not supported"),
    scoria::declare_arg(SCORIA_ARG_BOOL, "deviceshare.AscendHAMiVNPUEnable", "false",
                        "accepted, no effect: Ascend NPUs are not supported"),
    scoria::with_allowed(
        scoria::declare_arg(SCORIA_ARG_STRING, "deviceshare.SchedulePolicy", nullptr,
                            "vGPU card order: binpack (fullest card first) or "
                            "spread (emptiest first); unset: last card first"),
        kPolicies),
    scoria::with_min(scoria::declare_arg(SCORIA_ARG_INT, "deviceshare.ScheduleWeight", "0",
                                         "weight of the vGPU node score (binpack: 0-100 per "
                                         "card by its memory used); 0 scores nothing"),
                     0),
    scoria::declare_arg(SCORIA_ARG_STRING, "deviceshare.KnownGeometriesCMName",
                        "volcano-vgpu-device-config",
                        "accepted, no effect: MIG geometries are not supported"),
    scoria::declare_arg(SCORIA_ARG_STRING, "deviceshare.KnownGeometriesCMNamespace", "kube-system",
                        "accepted, no effect: MIG geometries are not supported"),
    scoria::declare_arg(SCORIA_ARG_LIST, "deviceshare.GPUExclusiveRules", nullptr,
                        "vGPU exclusivity: a list of label maps ([{app: trainer}]); pods "
                        "carrying every label of one never share a card with each other"),
};

/// A pod's request of the devices, read at session open.
struct Request {
  uint32_t shape = 0;  // requests alike (a job's tasks, usually) share one
  ds::ShareRequest share;
  ds::VgpuRequest vgpu;
  std::string group;            // "ns/podgroup" from its group-name annotation, or empty
  std::vector<uint32_t> rules;  // the GPU exclusivity rules it matches (vGPU only)
  bool wants_share = false, wants_vgpu = false;
};

/// What one pod holds on its node, so a deallocate gives back exactly that.
struct Holding {
  uint32_t node = 0;
  std::vector<int> share_ids;
  uint64_t share_memory = 0;
  std::optional<ds::VgpuFit> vgpu;
  std::string group;
  // GPU exclusivity: the rules the pod matches and the cards it holds for
  // them (those of `vgpu`, or the ones remembered for a pod shown without
  // its annotation).
  std::vector<uint32_t> rules;
  std::vector<size_t> reserved_cards;
  bool active = true;
};

struct Instance {
  explicit Instance(const scoria_args* args) {
    if (args == nullptr) return;
    sharing = scoria::arg_bool(args, "deviceshare.GPUSharingEnable", false);
    number = scoria::arg_bool(args, "deviceshare.GPUNumberEnable", false);
    vgpu = scoria::arg_bool(args, "deviceshare.VGPUEnable", false);
    policy = scoria::arg_string(args, "deviceshare.SchedulePolicy").value_or("");
    weight = scoria::arg_int(args, "deviceshare.ScheduleWeight", 0);
    read_exclusive_rules(args);
    // Volcano stops the scheduler (klog.Fatal) on these; Scoria refuses the config.
    if (sharing && number)
      throw std::invalid_argument(
          "deviceshare.GPUSharingEnable and deviceshare.GPUNumberEnable cannot both be true");
    if ((sharing || number) && vgpu)
      throw std::invalid_argument(
          "deviceshare.VGPUEnable cannot be used with deviceshare.GPUSharingEnable or "
          "deviceshare.GPUNumberEnable");
    warn_unsupported(args);
  }

  // What Volcano would do and Scoria does not: said once, at config load.
  static void warn_unsupported(const scoria_args* args) {
    for (const char* npu :
         {"deviceshare.AscendMindClusterVNPUEnable", "deviceshare.AscendHAMiVNPUEnable"})
      if (scoria::arg_bool(args, npu, false))
        log_line(SCORIA_LOG_WARNING, npu, " is true, but Ascend NPUs are not supported: ignored");
  }

  // An unreadable rule is said once, at config load, and left out: the
  // other rules and the rest of the plugin still work.
  void read_exclusive_rules(const scoria_args* args) {
    std::vector<std::pair<std::string, std::string>> given;
    const size_t count = api().args_count(args);
    for (size_t i = 0; i < count; ++i) {
      const std::string_view key = scoria::view(api().args_key_at(args, i));
      if (key.starts_with(ds::kGpuExclusiveRulesArgument))
        given.emplace_back(key, scoria::arg_string(args, key).value_or(""));
    }
    std::vector<std::string> problems;
    rules = ds::parse_exclusive_rules(given, &problems);
    for (const ds::ExclusiveRule& rule : rules)
      if (rule.labels.contains(kTaskIndexLabel)) rules_read_task_index = true;
    for (const std::string& p : problems) log_line(SCORIA_LOG_WARNING, p);
    if (!rules.empty() && !vgpu)
      log_line(SCORIA_LOG_WARNING, ds::kGpuExclusiveRulesArgument,
               " applies to vGPU cards only, and deviceshare.VGPUEnable is false: no effect");
  }

  bool sharing = false, number = false, vgpu = false;
  std::string policy;
  int64_t weight = 0;
  std::vector<ds::ExclusiveRule> rules;
  // Some rule names the label volcano.sh/task-index, which the host leaves
  // out of a pod's equivalence class (see cache_policy).
  bool rules_read_task_index = false;
  // Across sessions: the cards chosen for pods a rule matches, until each
  // pod stands on its node (Volcano's persistedGPUs); this instance's own.
  ds::RememberedPlacements remembered;

  // Per session.
  const scoria_session* ssn = nullptr;
  struct Dims {
    std::optional<size_t> gpu_memory, gpu_number, vgpu_number, vgpu_memory, vgpu_cores;
  } dims;
  std::vector<std::optional<ds::ShareNode>> share_nodes;  // by node index
  std::vector<std::optional<ds::VgpuNode>> vgpu_nodes;
  std::vector<ds::ExclusiveCards> exclusive;  // by node index, with rules on vGPU nodes
  // Pending tasks asking, by handle (stable for the session): the hooks
  // find a task's request without asking the host about the task.
  std::unordered_map<const scoria_task*, Request> requests;
  std::unordered_map<uint32_t, Holding> holdings;  // tasks holding cards, by task index
  // The last answer on each node, for the shape asked and the node's
  // cards as they were (version): a job's tasks ask alike, and a node's
  // cards change only when a pod is placed on it or leaves it. Each entry is
  // written only by the thread asking about that node.
  struct Memo {
    uint32_t shape = UINT32_MAX;
    uint64_t version = 0;
    bool fit = false;
    double score = 0;
  };
  mutable std::vector<Memo> memo;  // by node index
  std::vector<uint64_t> version;   // by node index: bumped when its cards change
  // Node handle -> index, so the batch hooks do not ask node_info per node.
  std::unordered_map<const scoria_node*, uint32_t> node_index;
  uint32_t unfit_reason = 0;
  // Bad annotations already logged (each once, not every session); bounded.
  std::set<std::string> reported;
};

std::optional<size_t> dim_of(const scoria_session* ssn, std::string_view name) {
  size_t dim = 0;
  if (api().resource_dim_find(ssn, scoria::str(name), &dim) != SCORIA_OK) return std::nullopt;
  return dim;
}

double at(const double* v, const std::optional<size_t>& dim) {
  return v != nullptr && dim ? v[*dim] : 0.0;
}

std::optional<std::string_view> node_annotation(const scoria_node* node, std::string_view key) {
  scoria_str value{};
  if (api().node_annotation(node, scoria::str(key), &value) != SCORIA_OK) return std::nullopt;
  return scoria::view(value);
}

std::optional<std::string_view> task_annotation(const scoria_task* task, std::string_view key) {
  scoria_str value{};
  if (api().task_annotation(task, scoria::str(key), &value) != SCORIA_OK) return std::nullopt;
  return scoria::view(value);
}

void report_once(Instance& self, const std::string& what) {
  if (self.reported.size() > 10000) self.reported.clear();
  if (self.reported.insert(what).second) log_line(SCORIA_LOG_WARNING, what);
}

// Volcano's getPodGroupKey: "ns/name" from the pod's group annotation.
std::string group_of(const scoria_task* task, std::string_view ns) {
  auto name = task_annotation(task, kGroupNameKey);
  if (!name || name->empty()) name = task_annotation(task, kVolcanoGroupNameKey);
  return name && !name->empty() ? std::string(ns) + "/" + std::string(*name) : std::string();
}

// --- GPU exclusivity ----------------------------------------------------------------

// Whether the rules apply on node `n`: it has vGPU cards shared by HAMi-core
// (Volcano leaves other modes alone: MIG isolates pods in hardware).
bool exclusive_on(const Instance& self, uint32_t n) {
  return !self.rules.empty() && n < self.exclusive.size() && self.vgpu_nodes[n] &&
         self.vgpu_nodes[n]->mode() == ds::kHamiCore;
}

std::vector<uint32_t> rules_of(const Instance& self, const scoria_task* task) {
  return ds::matching_rules(self.rules,
                            [&](std::string_view key) -> std::optional<std::string_view> {
                              scoria_str value{};
                              if (api().task_label(task, scoria::str(key), &value) != SCORIA_OK)
                                return std::nullopt;
                              return scoria::view(value);
                            });
}

// The cards a fit takes, each once.
std::vector<size_t> cards_of(const ds::VgpuFit& fit) {
  std::vector<size_t> out;
  for (const auto& container : fit.containers)
    for (const ds::CardUse& use : container)
      if (std::find(out.begin(), out.end(), use.card) == out.end()) out.push_back(use.card);
  return out;
}

// The cards a pod asking `r` may not take on node `n`: those the pods of
// its rules hold there. Empty when it may take any.
std::vector<bool> reserved_for(const Instance& self, const Request& r, uint32_t n) {
  if (r.rules.empty() || !exclusive_on(self, n)) return {};
  return self.exclusive[n].reserved_for(r.rules);
}

// Session open, a pod on vGPU node `n`: the cards it holds for the rules it
// matches. Those of its annotation (`h.vgpu`); else, for a pod this plugin
// placed that stands on its node without the annotation yet, the cards it
// was given then, for the rules it matched then.
void hold_exclusive(Instance& self, uint32_t n, const scoria_task* task, const scoria_task_info& ti,
                    Holding& h) {
  const std::string_view node = scoria::view(scoria::info(api().node_at(self.ssn, n)).name);
  const auto* remembered = self.remembered.keep(std::string(scoria::view(ti.uid)), node);
  std::vector<uint32_t> rules = rules_of(self, task);
  if (rules.empty()) return;
  if (h.vgpu) h.reserved_cards = cards_of(*h.vgpu);
  if (!h.reserved_cards.empty()) {
    h.rules = std::move(rules);
  } else if (remembered != nullptr) {
    const auto& cards = self.vgpu_nodes[n]->cards();
    for (const std::string& uuid : remembered->uuids)
      for (size_t c = 0; c < cards.size(); ++c)
        if (cards[c].uuid == uuid) h.reserved_cards.push_back(c);
    h.rules = remembered->rules;
  }
  if (!h.reserved_cards.empty()) self.exclusive[n].add(h.rules, h.reserved_cards);
}

// --- session open: the cards of every node, less what its pods hold --------------

void build_nodes(Instance& self) {
  const size_t n = api().node_count(self.ssn);
  self.share_nodes.assign(n, std::nullopt);
  self.vgpu_nodes.assign(n, std::nullopt);
  for (size_t i = 0; i < n; ++i) {
    const scoria_node* node = api().node_at(self.ssn, i);
    const scoria_node_info ni = scoria::info(node);
    if (self.sharing || self.number) {
      // Whole units: the vectors hold extended resources in milli-units.
      const double memory = at(ni.allocatable, self.dims.gpu_memory) / 1000;
      const double cards = at(ni.allocatable, self.dims.gpu_number) / 1000;
      std::string bad;
      self.share_nodes[i] =
          ds::ShareNode::build(memory, cards, node_annotation(node, ds::kUnhealthyGpuIds), &bad);
      if (!bad.empty())
        report_once(self, "node " + std::string(scoria::view(ni.name)) + ": annotation " +
                              std::string(ds::kUnhealthyGpuIds) + " has \"" + bad +
                              "\", not a card id; that part is ignored");
    }
    if (self.vgpu) {
      const auto reg = node_annotation(node, ds::kVgpuRegisterAnnotation);
      // Volcano: no vGPU device without the three resources allocatable.
      if (!reg || at(ni.allocatable, self.dims.vgpu_number) <= 0 ||
          at(ni.allocatable, self.dims.vgpu_cores) <= 0 ||
          at(ni.allocatable, self.dims.vgpu_memory) <= 0)
        continue;
      std::string error;
      self.vgpu_nodes[i] = ds::VgpuNode::decode(scoria::view(ni.name), *reg, &error);
      if (self.vgpu_nodes[i]) self.vgpu_nodes[i]->set_policy(self.policy);
      if (!self.vgpu_nodes[i])
        report_once(self, "node " + std::string(scoria::view(ni.name)) + ": annotation " +
                              std::string(ds::kVgpuRegisterAnnotation) +
                              " does not parse: " + error + "; the node is taken to have no vGPU");
    }
  }
}

void count_placed(Instance& self) {
  const size_t n = api().node_count(self.ssn);
  for (size_t i = 0; i < n; ++i) {
    if (!self.share_nodes[i] && !self.vgpu_nodes[i]) continue;
    const scoria_node* node = api().node_at(self.ssn, i);
    const size_t count = api().node_task_count(node);
    for (size_t k = 0; k < count; ++k) {
      const scoria_task* task = api().node_task_at(node, k);
      const scoria_task_info ti = scoria::info(task);
      if (ti.status & (SCORIA_TASK_SUCCEEDED | SCORIA_TASK_FAILED)) continue;
      Holding h;
      h.node = static_cast<uint32_t>(i);
      bool holds = false;
      if (self.share_nodes[i]) {
        const double memory = at(ti.init_resreq, self.dims.gpu_memory) / 1000;
        const double cards = at(ti.init_resreq, self.dims.gpu_number) / 1000;
        if (memory > 0 || cards > 0) {
          if (const auto index = task_annotation(task, ds::kGpuIndexAnnotation)) {
            if (auto ids = ds::parse_gpu_index(*index)) {
              h.share_ids = std::move(*ids);
              h.share_memory = static_cast<uint64_t>(std::llround(memory));
              self.share_nodes[i]->add(h.share_ids, h.share_memory);
              holds = true;
            } else {
              report_once(self, "pod " + std::string(scoria::view(ti.uid)) + ": annotation " +
                                    std::string(ds::kGpuIndexAnnotation) + " \"" +
                                    std::string(*index) +
                                    "\" is not a list of card ids; its cards are not counted");
            }
          }
        }
      }
      if (self.vgpu_nodes[i]) {
        if (const auto ids = task_annotation(task, ds::kVgpuIdsAnnotation)) {
          bool bad = false;
          ds::VgpuFit fit = self.vgpu_nodes[i]->held(*ids, &bad);
          if (bad)
            report_once(self, "pod " + std::string(scoria::view(ti.uid)) + ": annotation " +
                                  std::string(ds::kVgpuIdsAnnotation) + " \"" + std::string(*ids) +
                                  "\" has entries that do not parse; they are not counted");
          h.group = group_of(task, scoria::view(ti.namespace_));
          self.vgpu_nodes[i]->apply(fit, h.group);
          h.vgpu = std::move(fit);
          holds = true;
        }
        if (exclusive_on(self, static_cast<uint32_t>(i))) {
          hold_exclusive(self, static_cast<uint32_t>(i), task, ti, h);
          holds = holds || !h.reserved_cards.empty();
        }
      }
      if (holds) self.holdings.insert_or_assign(ti.index, std::move(h));
    }
  }
}

// What makes two requests answer alike on every node.
uint32_t shape_of(std::unordered_map<std::string, uint32_t>& shapes, const Request& r) {
  std::string key = std::to_string(r.wants_share) + std::to_string(r.wants_vgpu) + ":" +
                    std::to_string(r.share.memory) + "," + std::to_string(r.share.number) + ";";
  for (const auto& c : r.vgpu.containers)
    key += std::to_string(c.nums) + "," + std::to_string(c.mem) + "," +
           std::to_string(c.mem_percent) + "," + std::to_string(c.cores) + ";";
  const auto add = [&](const std::string& s) { key += std::to_string(s.size()) + ":" + s; };
  add(r.vgpu.mode.value_or("\x01"));
  add(r.vgpu.use_types.value_or("\x01"));
  add(r.vgpu.no_use_types.value_or("\x01"));
  for (const auto& u : r.vgpu.use_uuids) add(u);
  key += '|';
  for (const auto& u : r.vgpu.no_use_uuids) add(u);
  add(r.vgpu.spread_group);
  key += '|';
  for (const uint32_t rule : r.rules) key += std::to_string(rule) + ",";
  return shapes.try_emplace(std::move(key), static_cast<uint32_t>(shapes.size())).first->second;
}

// What a pending pod asks of the devices. Everything read here is in the
// pod's equivalence class (its spec, labels and annotations) except its
// PodGroup (`group`, and `spread_group` through it), which cache_policy
// therefore keeps out of the answers it declares.
Request read_request(Instance& self, const scoria_task* task, const scoria_task_info& ti) {
  Request r;
  if (self.sharing || self.number) {
    r.share.memory =
        static_cast<uint64_t>(std::llround(at(ti.init_resreq, self.dims.gpu_memory) / 1000));
    r.share.number =
        static_cast<uint64_t>(std::llround(at(ti.init_resreq, self.dims.gpu_number) / 1000));
    // Volcano's HasDeviceRequest.
    r.wants_share = (self.sharing && r.share.memory > 0) || (self.number && r.share.number > 0);
  }
  if (self.vgpu &&
      (at(ti.resreq, self.dims.vgpu_number) > 0 || at(ti.resreq, self.dims.vgpu_memory) > 0)) {
    std::string bad;
    r.vgpu.containers = ds::vgpu_containers(scoria::view(api().task_object_json(task)), &bad);
    if (!bad.empty())
      report_once(self, "pod " + std::string(scoria::view(ti.uid)) + ": " + bad +
                            " is not a quantity; read as not given");
    r.wants_vgpu = !r.vgpu.containers.empty();
    if (r.wants_vgpu) {
      if (auto v = task_annotation(task, ds::kVgpuModeAnnotation)) r.vgpu.mode = std::string(*v);
      if (auto v = task_annotation(task, ds::kUseGpuTypeAnnotation))
        r.vgpu.use_types = std::string(*v);
      if (auto v = task_annotation(task, ds::kNoUseGpuTypeAnnotation))
        r.vgpu.no_use_types = std::string(*v);
      if (auto v = task_annotation(task, ds::kUseUuidAnnotation))
        r.vgpu.use_uuids = ds::split_list(*v);
      if (auto v = task_annotation(task, ds::kNoUseUuidAnnotation))
        r.vgpu.no_use_uuids = ds::split_list(*v);
      r.group = group_of(task, scoria::view(ti.namespace_));
      if (task_annotation(task, ds::kPodGroupPolicyAnnotation) == std::string_view("spread"))
        r.vgpu.spread_group = r.group;
      if (!self.rules.empty()) r.rules = rules_of(self, task);
    }
  }
  return r;
}

void read_requests(Instance& self) {
  std::unordered_map<std::string, uint32_t> shapes;
  const size_t jobs = api().job_count(self.ssn);
  for (size_t j = 0; j < jobs; ++j) {
    const scoria_job* job = api().job_at(self.ssn, j);
    if (scoria::info(job).status_count[0] == 0) continue;  // nothing pending
    const size_t count = api().job_task_count(job);
    for (size_t k = 0; k < count; ++k) {
      const scoria_task* task = api().job_task_at(job, k);
      const scoria_task_info ti = scoria::info(task);
      if (ti.status != SCORIA_TASK_PENDING) continue;
      Request r = read_request(self, task, ti);
      if (r.wants_share || r.wants_vgpu) {
        r.shape = shape_of(shapes, r);
        self.requests.emplace(task, std::move(r));
      }
    }
  }
}

// --- hooks ----------------------------------------------------------------------------

const Request* request_of(const Instance& self, const scoria_task* task) {
  const auto it = self.requests.find(task);
  return it == self.requests.end() ? nullptr : &it->second;
}

uint32_t index_of(const Instance& self, const scoria_node* node) {
  const auto it = self.node_index.find(node);
  return it != self.node_index.end() ? it->second : scoria::info(node).index;
}

// Whether `r` fits node `n`'s cards (a node without the device does not
// pass a pod that asks for it), and its vGPU score there.
const Instance::Memo& answer(const Instance& self, const Request& r, uint32_t n) {
  Instance::Memo& memo = self.memo[n];  // see Instance::memo for why this write is safe
  if (memo.shape == r.shape && memo.version == self.version[n]) return memo;
  memo = Instance::Memo{r.shape, self.version[n], true, 0};
  if (r.wants_share &&
      (!self.share_nodes[n] || !self.share_nodes[n]->fits(r.share, self.sharing, self.number)))
    memo.fit = false;
  if (memo.fit && r.wants_vgpu)
    memo.fit = self.vgpu_nodes[n] &&
               self.vgpu_nodes[n]->fits(r.vgpu, &memo.score, reserved_for(self, r, n));
  return memo;
}

bool fits_node(const Instance& self, const Request& r, uint32_t n) {
  return answer(self, r, n).fit;
}

// Batch hooks: the host asks about many nodes in one call, so the task's
// request is found once, not once per node.
scoria_code on_predicate_batch(void* user_data, const scoria_task* task,
                               const scoria_node* const* nodes, size_t count, scoria_code* codes,
                               uint32_t* reasons) {
  const auto& self = *static_cast<const Instance*>(user_data);
  const Request* r = request_of(self, task);
  for (size_t i = 0; i < count; ++i) {
    const bool fit = r == nullptr || fits_node(self, *r, index_of(self, nodes[i]));
    codes[i] = fit ? SCORIA_OK : SCORIA_UNSCHEDULABLE;
    reasons[i] = fit ? 0 : self.unfit_reason;
  }
  return SCORIA_OK;
}

scoria_code on_node_order_batch(void* user_data, const scoria_task* task,
                                const scoria_node* const* nodes, size_t count, double* scores) {
  const auto& self = *static_cast<const Instance*>(user_data);
  std::fill_n(scores, count, 0.0);
  const Request* r = request_of(self, task);
  if (r == nullptr || !r->wants_vgpu) return SCORIA_OK;  // gpushare scores 0 in Volcano
  for (size_t i = 0; i < count; ++i) {
    const Instance::Memo& m = answer(self, *r, index_of(self, nodes[i]));
    if (m.fit) scores[i] = std::floor(m.score + 0.5) * static_cast<double>(self.weight);
  }
  return SCORIA_OK;
}

// Cache policy (ABI 1.7). Both hooks answer for a node from that node's
// cards alone: what the node registers (or its gpu-memory and gpu-number),
// less what the pods on it hold, and with GPUExclusiveRules the cards its
// rules' pods hold there. Those are counted at session open from the node
// and the pods on it (with the placements remembered from earlier sessions,
// which change only at session open, and the host's cache lasts one
// session); afterwards they change only in on_allocate and on_deallocate of
// a task on that node (allocate, release, take), which the host counts as a
// change of that node. The memo is keyed by the same changes. Nothing the
// predicate computes is kept for allocate, which chooses the cards again.
// The score is the node's own (Volcano's GPUScore of the cards the pod would
// take, times ScheduleWeight), not normalised over the candidates. So the
// answers are pure for a pod whose request its class determines, which is
// every pod but:
// - one asking vGPU with volcano.sh/vgpu-podgroup-policy: spread, which
//   avoids the cards its own PodGroup holds, and the PodGroup is not in the
//   class (two jobs' alike pods must not share answers);
// - one asking vGPU when a GPU exclusivity rule names volcano.sh/task-index,
//   a label the class leaves out (which rules a pod matches could differ).
// A pod asking for no device passes every node and scores 0: cacheable.
uint32_t cache_policy(void* user_data, const scoria_task* task) {
  // Claims are never read (SCORIA_CACHE_CLAIMS).
  constexpr uint32_t kBoth = SCORIA_CACHE_PREDICATE | SCORIA_CACHE_NODE_ORDER | SCORIA_CACHE_CLAIMS;
  auto& self = *static_cast<Instance*>(user_data);
  const Request* r = request_of(self, task);
  if (r == nullptr) {
    // Not a pod that was pending at session open and asks: the hooks pass
    // it everywhere with 0. That is its whole class's answer only when the
    // class asks for no device, which its spec says.
    const Request probe = read_request(self, task, scoria::info(task));
    return probe.wants_share || probe.wants_vgpu ? 0 : kBoth;
  }
  if (r->wants_vgpu) {
    if (task_annotation(task, ds::kPodGroupPolicyAnnotation) == std::string_view("spread"))
      return 0;
    if (self.rules_read_task_index) return 0;
  }
  return kBoth;
}

void set_annotation(const Instance& self, const scoria_task* task, std::string_view key,
                    const std::string& value) {
  api().task_set_bind_annotation(const_cast<scoria_session*>(self.ssn), task, scoria::str(key),
                                 scoria::str(value));
}

void release(Instance& self, Holding& h) {
  if (!h.active) return;
  ++self.version[h.node];
  if (!h.share_ids.empty() && self.share_nodes[h.node])
    self.share_nodes[h.node]->remove(h.share_ids, h.share_memory);
  if (h.vgpu && self.vgpu_nodes[h.node]) self.vgpu_nodes[h.node]->release(*h.vgpu, h.group);
  if (!h.rules.empty() && h.node < self.exclusive.size())
    self.exclusive[h.node].remove(h.rules, h.reserved_cards);
  h.active = false;
}

void take(Instance& self, Holding& h) {
  if (h.active) return;
  ++self.version[h.node];
  if (!h.share_ids.empty() && self.share_nodes[h.node])
    self.share_nodes[h.node]->add(h.share_ids, h.share_memory);
  if (h.vgpu && self.vgpu_nodes[h.node]) self.vgpu_nodes[h.node]->apply(*h.vgpu, h.group);
  if (!h.rules.empty() && h.node < self.exclusive.size())
    self.exclusive[h.node].add(h.rules, h.reserved_cards);
  h.active = true;
}

// Volcano's Devices.Allocate, from its predicates' allocate event: the
// cards chosen again on the node as it is now, counted, and written on the pod.
void allocate(Instance& self, const scoria_task* task, const scoria_task_info& ti,
              const Request& r) {
  const scoria_node* node = api().node_find(self.ssn, ti.node_name);
  if (node == nullptr) return;
  const uint32_t n = scoria::info(node).index;
  Holding h;
  h.node = n;
  h.group = r.group;
  ++self.version[n];
  const int64_t now_ms = scoria::now_ms(self.ssn);
  if (r.wants_share && self.share_nodes[n]) {
    const auto ids = self.share_nodes[n]->fit(r.share, self.sharing, self.number);
    if (!ids || ids->empty()) {
      log_line(SCORIA_LOG_V3, "pod ", scoria::view(ti.uid), " no longer fits the GPUs of ",
               scoria::view(ti.node_name), "; no card written");
      return;
    }
    h.share_ids = *ids;
    h.share_memory = r.share.memory;
    self.share_nodes[n]->add(h.share_ids, h.share_memory);
    set_annotation(self, task, ds::kPredicateTimeAnnotation, std::to_string(now_ms * 1000000));
    set_annotation(self, task, ds::kGpuIndexAnnotation, ds::format_gpu_index(h.share_ids));
  }
  if (r.wants_vgpu && self.vgpu_nodes[n]) {
    auto fit = self.vgpu_nodes[n]->fit(r.vgpu, self.policy, nullptr, reserved_for(self, r, n));
    if (!fit) {
      log_line(SCORIA_LOG_V3, "pod ", scoria::view(ti.uid), " no longer fits the vGPUs of ",
               scoria::view(ti.node_name), "; no card written");
    } else {
      self.vgpu_nodes[n]->apply(*fit, h.group);
      const std::string ids = self.vgpu_nodes[n]->encode(*fit);
      const std::string seconds = std::to_string(now_ms / 1000);
      set_annotation(self, task, ds::kVgpuNodeAnnotation, std::string(scoria::view(ti.node_name)));
      set_annotation(self, task, ds::kVgpuTimeAnnotation, seconds);
      set_annotation(self, task, ds::kVgpuIdsAnnotation, ids);
      set_annotation(self, task, ds::kVgpuToAllocateAnnotation, ids);
      set_annotation(self, task, ds::kBindPhaseAnnotation, "allocating");
      set_annotation(self, task, ds::kBindTimeAnnotation, seconds);
      if (!r.rules.empty() && exclusive_on(self, n)) {
        // Volcano's exclusive Allocate: the cards now held for the pod's
        // rules, remembered until the pod is seen on the node.
        h.rules = r.rules;
        h.reserved_cards = cards_of(*fit);
        self.exclusive[n].add(h.rules, h.reserved_cards);
        ds::RememberedPlacements::Placement placed{
            std::string(scoria::view(ti.node_name)), {}, h.rules};
        for (const size_t c : h.reserved_cards)
          placed.uuids.push_back(self.vgpu_nodes[n]->cards()[c].uuid);
        self.remembered.remember(std::string(scoria::view(ti.uid)), std::move(placed));
      }
      h.vgpu = std::move(*fit);
    }
  }
  if (!h.share_ids.empty() || h.vgpu) self.holdings.insert_or_assign(ti.index, std::move(h));
}

void on_allocate(void* user_data, const scoria_task* task) {
  auto& self = *static_cast<Instance*>(user_data);
  const scoria_task_info ti = scoria::info(task);
  if (ti.status == SCORIA_TASK_ALLOCATED || ti.status == SCORIA_TASK_PIPELINED) {
    if (const auto it = self.requests.find(task); it != self.requests.end())
      allocate(self, task, ti, it->second);
    return;
  }
  // An eviction undone: the pod holds its cards again.
  if (const auto it = self.holdings.find(ti.index); it != self.holdings.end())
    take(self, it->second);
}

void on_deallocate(void* user_data, const scoria_task* task) {
  auto& self = *static_cast<Instance*>(user_data);
  const scoria_task_info ti = scoria::info(task);
  const auto it = self.holdings.find(ti.index);
  if (it == self.holdings.end()) return;
  release(self, it->second);
  // A new allocation chooses afresh; an evicted pod may come back (discard).
  if (ti.status == SCORIA_TASK_PENDING) self.holdings.erase(it);
}

scoria_code on_session_open(void* instance, scoria_session* ssn, scoria_hooks* hooks) {
  if (hooks == nullptr || hooks->struct_size < sizeof(scoria_hooks)) return SCORIA_INVALID_ARGUMENT;
  auto& self = *static_cast<Instance*>(instance);
  return scoria::guarded([&] {
    self.ssn = ssn;
    self.requests.clear();
    self.holdings.clear();
    if (!self.sharing && !self.number && !self.vgpu) return;
    if (!SCORIA_HOST_HAS(&api(), task_set_bind_annotation)) {
      report_once(self,
                  "the host is older than ABI 1.6 and cannot write the chosen cards on "
                  "pods; deviceshare does nothing");
      return;
    }
    self.dims = {dim_of(ssn, ds::kGpuMemoryResource), dim_of(ssn, ds::kGpuNumberResource),
                 dim_of(ssn, ds::kVgpuNumberResource), dim_of(ssn, ds::kVgpuMemoryResource),
                 dim_of(ssn, ds::kVgpuCoresResource)};
    read_requests(self);
    // Nothing asks for a device: every node passes and scores 0.
    if (self.requests.empty()) return;
    if (self.unfit_reason == 0)
      self.unfit_reason = api().reason_intern(scoria::str("Insufficient GPU on a card"));
    build_nodes(self);
    self.exclusive.assign(self.rules.empty() ? 0 : self.vgpu_nodes.size(), ds::ExclusiveCards{});
    count_placed(self);
    self.remembered.finish_session_open();
    self.memo.assign(self.share_nodes.size(), Instance::Memo{});
    self.node_index.clear();
    for (size_t i = 0; i < self.share_nodes.size(); ++i)
      self.node_index.emplace(api().node_at(ssn, i), static_cast<uint32_t>(i));
    self.version.assign(self.share_nodes.size(), 0);
    hooks->user_data = &self;
    hooks->on_predicate_batch = on_predicate_batch;
    if (self.vgpu && self.weight > 0) hooks->on_node_order_batch = on_node_order_batch;
    hooks->on_allocate = on_allocate;
    hooks->on_deallocate = on_deallocate;
    if (hooks->struct_size >= offsetof(scoria_hooks, on_cache_policy) + sizeof(void*))
      hooks->on_cache_policy = cache_policy;
  });
}

void on_session_close(void* instance, scoria_session* /*ssn*/) {
  auto& self = *static_cast<Instance*>(instance);
  self.requests.clear();
  self.holdings.clear();
  self.share_nodes.clear();
  self.vgpu_nodes.clear();
  self.exclusive.clear();
  self.node_index.clear();
  self.ssn = nullptr;
}

const scoria_descriptor kDescriptor = {
    .struct_size = sizeof(scoria_descriptor),
    .abi_major = SCORIA_ABI_VERSION_MAJOR,
    .abi_minor = SCORIA_ABI_VERSION_MINOR,
    .name = "deviceshare",
    .kind = SCORIA_KIND_PLUGIN,
    .flags = SCORIA_FLAG_DECLARES_ARGS,
    .version = "1.0.0",
    .description =
        "Shares GPUs between pods by memory and cores (gpushare, vGPU) and writes "
        "the cards chosen on the pod",
    .on_create = scoria::create_instance<Instance>,
    .on_destroy = scoria::destroy_instance<Instance>,
    .on_session_open = on_session_open,
    .on_session_close = on_session_close,
    .on_execute = nullptr,
    .args = kArgs,
    .arg_count = std::size(kArgs),
};

}  // namespace

SCORIA_DEFINE_PLUGIN(kDescriptor)
