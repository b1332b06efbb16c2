// Volcano's gpushare device (pkg/scheduler/api/devices/nvidia/gpushare): a
// node's volcano.sh/gpu-memory split evenly over its volcano.sh/gpu-number
// cards, less the cards named unhealthy; a pod asks for memory on one card
// (volcano.sh/gpu-memory) or for whole idle cards (volcano.sh/gpu-number),
// and the cards it got are written on it as volcano.sh/gpu-index ("0,1").
// Plain C++, no SDK: the plugin feeds it what it reads from the session.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace scoria_deviceshare {

inline constexpr std::string_view kGpuMemoryResource = "volcano.sh/gpu-memory";
inline constexpr std::string_view kGpuNumberResource = "volcano.sh/gpu-number";
inline constexpr std::string_view kGpuIndexAnnotation = "volcano.sh/gpu-index";
inline constexpr std::string_view kPredicateTimeAnnotation = "volcano.sh/predicate-time";
inline constexpr std::string_view kUnhealthyGpuIds = "volcano.sh/gpu-unhealthy-ids";

/// One card: its id (index on the node), memory, and the pods on it.
struct ShareCard {
  int id = 0;
  uint64_t memory = 0;
  uint64_t used_memory = 0;  // sum of the gpu-memory of the pods on it
  uint32_t pods = 0;         // pods on it (any request): 0 means idle
};

/// What a pod asks of gpushare: memory on one card, or whole idle cards.
struct ShareRequest {
  uint64_t memory = 0;
  uint64_t number = 0;
};

class ShareNode {
 public:
  /// Cards from the node's allocatable gpu-memory and gpu-number; nullopt
  /// when it has neither or zero cards (Volcano: no such device).
  /// `unhealthy` is the node's volcano.sh/gpu-unhealthy-ids (comma
  /// separated ids); an id that is not a number is left out of `*bad`.
  static std::optional<ShareNode> build(double total_memory, double cards,
                                        std::optional<std::string_view> unhealthy,
                                        std::string* bad);

  const std::vector<ShareCard>& cards() const { return cards_; }
  ShareCard* card(int id);

  /// Counts a pod placed on cards `ids` (ids it does not have are ignored).
  void add(const std::vector<int>& ids, uint64_t memory);
  void remove(const std::vector<int>& ids, uint64_t memory);

  /// The cards the request gets: Volcano's predicateGPUbyMemory (the
  /// lowest id with room) when it asks for memory, else predicateGPUbyNumber
  /// (the first idle cards, by id; Volcano takes them in map order). nullopt
  /// when an enabled check fails: `sharing` / `number` are
  /// deviceshare.GPUSharingEnable / GPUNumberEnable.
  std::optional<std::vector<int>> fit(const ShareRequest& req, bool sharing, bool number) const;
  /// fit() without building the list (the predicate's question).
  bool fits(const ShareRequest& req, bool sharing, bool number) const;
  std::vector<int> by_memory(uint64_t memory) const;
  std::vector<int> by_number(uint64_t number) const;

 private:
  std::vector<ShareCard> cards_;
};

/// volcano.sh/gpu-index: "0" or "0,1"; nullopt when a part is not a number.
std::optional<std::vector<int>> parse_gpu_index(std::string_view value);
std::string format_gpu_index(const std::vector<int>& ids);

}  // namespace scoria_deviceshare
