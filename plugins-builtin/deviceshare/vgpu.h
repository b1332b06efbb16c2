// Volcano's vGPU device (pkg/scheduler/api/devices/nvidia/vgpu, HAMi-core
// sharing): the cards a node's vGPU device plugin registers in its
// volcano.sh/node-vgpu-register annotation, each shared by up to `number`
// pods within its memory and 100% of its cores; a container asks for
// volcano.sh/vgpu-number cards with volcano.sh/vgpu-memory (MB) and
// volcano.sh/vgpu-cores (percent) on each, and the cards it got are written
// on the pod as volcano.sh/vgpu-ids-new ("UUID,NVIDIA,mem,cores:" per card,
// ";" between containers). Plain C++, no SDK.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace scoria_deviceshare {

inline constexpr std::string_view kVgpuNumberResource = "volcano.sh/vgpu-number";
inline constexpr std::string_view kVgpuMemoryResource = "volcano.sh/vgpu-memory";
inline constexpr std::string_view kVgpuCoresResource = "volcano.sh/vgpu-cores";
inline constexpr std::string_view kVgpuRegisterAnnotation = "volcano.sh/node-vgpu-register";
inline constexpr std::string_view kVgpuIdsAnnotation = "volcano.sh/vgpu-ids-new";
inline constexpr std::string_view kVgpuToAllocateAnnotation = "volcano.sh/devices-to-allocate";
inline constexpr std::string_view kVgpuNodeAnnotation = "volcano.sh/vgpu-node";
inline constexpr std::string_view kVgpuTimeAnnotation = "volcano.sh/vgpu-time";
inline constexpr std::string_view kBindPhaseAnnotation = "volcano.sh/bind-phase";
inline constexpr std::string_view kBindTimeAnnotation = "volcano.sh/bind-time";
inline constexpr std::string_view kVgpuModeAnnotation = "volcano.sh/vgpu-mode";
inline constexpr std::string_view kUseGpuTypeAnnotation = "nvidia.com/use-gputype";
inline constexpr std::string_view kNoUseGpuTypeAnnotation = "nvidia.com/nouse-gputype";
inline constexpr std::string_view kUseUuidAnnotation = "volcano.sh/vgpu-use-gpuuuid";
inline constexpr std::string_view kNoUseUuidAnnotation = "volcano.sh/vgpu-nouse-gpuuuid";
inline constexpr std::string_view kPodGroupPolicyAnnotation = "volcano.sh/vgpu-podgroup-policy";
inline constexpr std::string_view kHamiCore = "hami-core";

/// One registered card and what the pods on it use.
struct VgpuCard {
  std::string uuid;
  std::string type;     // e.g. "NVIDIA-Tesla V100"
  uint64_t number = 0;  // pods that may share it
  uint64_t memory = 0;  // MB
  bool health = true;
  bool nvidia = false;  // type names NVIDIA: the only vendor Volcano's vGPU takes
  uint64_t used_num = 0, used_mem = 0, used_core = 0;
  // PodGroups ("ns/name") of the pods on it, for the podgroup spread policy.
  std::vector<std::string> groups;
};

/// One container's request (Volcano's ContainerDeviceRequest).
struct ContainerRequest {
  uint64_t nums = 0;
  uint64_t mem = 0;            // MB per card; 0 with mem_percent 100: a whole card
  uint64_t mem_percent = 101;  // 101: not given
  uint64_t cores = 0;
};

/// What a pod asks of vGPU, with the annotations that constrain its cards.
struct VgpuRequest {
  std::vector<ContainerRequest> containers;
  std::optional<std::string> mode;                     // volcano.sh/vgpu-mode
  std::optional<std::string> use_types, no_use_types;  // nvidia.com/(no)use-gputype
  std::vector<std::string> use_uuids, no_use_uuids;
  std::string spread_group;  // its PodGroup when it asks to spread over cards
};

/// A card given to one container.
struct CardUse {
  size_t card = 0;  // index in VgpuNode::cards()
  uint64_t mem = 0, cores = 0;
};

struct VgpuFit {
  std::vector<std::vector<CardUse>> containers;  // one list per container asking
  double score = 0;                              // Volcano's GPUScore summed
};

class VgpuNode {
 public:
  /// Decodes volcano.sh/node-vgpu-register: "UUID,count,memory,type,health,mode:"
  /// per card. nullopt, with why in *error, when it does not parse (Volcano
  /// drops the node's device for fewer than six fields; Scoria also for a
  /// count, memory or health that is not one) or names no card.
  static std::optional<VgpuNode> decode(std::string_view name, std::string_view annotation,
                                        std::string* error);

  const std::vector<VgpuCard>& cards() const { return cards_; }
  const std::string& mode() const { return mode_; }

  /// The cards a pod already holds, from its volcano.sh/vgpu-ids-new: each
  /// device entry whose UUID contains a card's, each card once per pod
  /// (HAMi-core's AddPod). Entries that do not parse are left out and
  /// *bad set.
  VgpuFit held(std::string_view ids, bool* bad) const;

  /// Volcano's checkNodeGPUSharingPredicateAndScore on a copy of the cards:
  /// nullopt, with why in *why, when the pod does not fit. The cards
  /// `reserved` marks (by index; GPU exclusivity) are taken as full.
  std::optional<VgpuFit> fit(const VgpuRequest& req, std::string_view policy, std::string* why,
                             const std::vector<bool>& reserved = {}) const;
  /// The card order deviceshare.SchedulePolicy asks for (set once per
  /// session; kept current as cards are taken and given back).
  void set_policy(std::string_view policy);
  /// fit() under that policy without building the cards' list: whether the
  /// pod fits, and its score in *score when given. Safe to call from
  /// several threads at once while nothing is applied or released.
  bool fits(const VgpuRequest& req, double* score, const std::vector<bool>& reserved = {}) const;
  /// Takes / gives back what a fit gave a pod.
  void apply(const VgpuFit& fit, const std::string& group);
  void release(const VgpuFit& fit, const std::string& group);

  /// volcano.sh/vgpu-ids-new for a fit.
  std::string encode(const VgpuFit& fit) const;

 private:
  void reorder();

  std::vector<VgpuCard> cards_;
  std::string mode_ = std::string(kHamiCore);
  std::string policy_;
  std::vector<uint32_t> order_;  // card_order(cards_, policy_)
};

/// Card order for a policy: binpack most used memory first, spread fewest
/// pods first (ties by index), anything else last index first.
std::vector<size_t> card_order(const std::vector<VgpuCard>& cards, std::string_view policy);

/// Volcano's GPUScore of a card after the pod is counted on it.
double card_score(const VgpuCard& card, std::string_view policy);

/// Splits "a,b, c" into trimmed non-empty parts.
std::vector<std::string> split_list(std::string_view value);

}  // namespace scoria_deviceshare
