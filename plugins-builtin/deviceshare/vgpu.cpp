#include "vgpu.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <numeric>

namespace scoria_deviceshare {

namespace {

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  for (;;) {
    const size_t at = s.find(sep);
    parts.push_back(s.substr(0, at));
    if (at == std::string_view::npos) return parts;
    s.remove_prefix(at + 1);
  }
}

std::optional<uint64_t> parse_uint(std::string_view s) {
  uint64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

// Go's strconv.ParseBool.
std::optional<bool> parse_bool(std::string_view s) {
  for (std::string_view t : {"1", "t", "T", "TRUE", "true", "True"})
    if (s == t) return true;
  for (std::string_view f : {"0", "f", "F", "FALSE", "false", "False"})
    if (s == f) return false;
  return std::nullopt;
}

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

// Volcano's checkGPUtype: the card's type must contain one of the wanted
// types (case aside) and none of the unwanted ones.
bool type_allowed(const VgpuRequest& req, std::string_view card_type) {
  if (!req.use_types && !req.no_use_types) return true;
  const std::string type = upper(card_type);
  const auto any_in = [&](const std::string& list) {
    for (std::string_view part : split(list, ','))
      if (type.find(upper(part)) != std::string::npos) return true;
    return false;
  };
  if (req.use_types) return any_in(*req.use_types);
  if (req.no_use_types) return !any_in(*req.no_use_types);
  return true;
}

bool uuid_allowed(const VgpuRequest& req, const std::string& uuid) {
  const bool filtering = !req.use_uuids.empty() || !req.no_use_uuids.empty();
  if (uuid.empty() && filtering) return false;
  const auto has = [&](const std::vector<std::string>& list) {
    return std::find(list.begin(), list.end(), uuid) != list.end();
  };
  if (!req.use_uuids.empty() && !has(req.use_uuids)) return false;
  return !has(req.no_use_uuids);
}

void take(VgpuCard& card, uint64_t mem, uint64_t cores) {
  ++card.used_num;
  card.used_mem += mem;
  card.used_core += cores;
}

void give_back(VgpuCard& card, uint64_t mem, uint64_t cores) {
  card.used_num -= std::min<uint64_t>(card.used_num, 1);
  card.used_mem -= std::min(card.used_mem, mem);
  card.used_core -= std::min(card.used_core, cores);
}

// The memory `want` takes on card `c`, when `c` can take it (everything
// Volcano checks but the UUID lists).
std::optional<uint64_t> card_takes(const VgpuRequest& req, const ContainerRequest& want,
                                   const VgpuCard& c, bool reserved) {
  // A card reserved by GPU exclusivity counts as full (Volcano caps its
  // pod count at the pods on it), so it fails here, where a full one does.
  if (reserved || c.number <= c.used_num) return std::nullopt;
  if (!req.spread_group.empty() &&
      std::find(c.groups.begin(), c.groups.end(), req.spread_group) != c.groups.end())
    return std::nullopt;
  const uint64_t mem = want.mem_percent != 101
                           ? static_cast<uint64_t>(static_cast<double>(c.memory) *
                                                   static_cast<double>(want.mem_percent) / 100.0)
                           : want.mem;
  if (c.used_mem > c.memory || c.memory - c.used_mem < mem) return std::nullopt;
  if (c.used_core + want.cores > 100) return std::nullopt;
  if (want.cores == 100 && c.used_num > 0) return std::nullopt;  // 100% cores: the card alone
  if (c.used_core == 100 && want.cores == 0) return std::nullopt;
  if (!c.nvidia || !type_allowed(req, c.type)) return std::nullopt;
  return mem;
}

}  // namespace

std::vector<std::string> split_list(std::string_view value) {
  std::vector<std::string> out;
  for (std::string_view part : split(value, ',')) {
    while (!part.empty() && std::isspace(static_cast<unsigned char>(part.front())))
      part.remove_prefix(1);
    while (!part.empty() && std::isspace(static_cast<unsigned char>(part.back())))
      part.remove_suffix(1);
    if (!part.empty()) out.emplace_back(part);
  }
  return out;
}

std::optional<VgpuNode> VgpuNode::decode(std::string_view name, std::string_view annotation,
                                         std::string* error) {
  const auto fail = [&](std::string why) -> std::optional<VgpuNode> {
    if (error != nullptr) *error = std::move(why);
    return std::nullopt;
  };
  if (annotation.find(':') == std::string_view::npos)
    return fail("no card in it (expected \"UUID,count,memory,type,health,mode:\" per card)");
  VgpuNode node;
  for (std::string_view part : split(annotation, ':')) {
    if (part.find(',') == std::string_view::npos) continue;
    const std::vector<std::string_view> items = split(part, ',');
    if (items.size() < 6)
      return fail("card \"" + std::string(part) +
                  "\" has fewer than 6 fields (UUID,count,memory,type,health,mode)");
    const std::optional<uint64_t> count = parse_uint(items[1]);
    const std::optional<uint64_t> memory = parse_uint(items[2]);
    const std::optional<bool> health = parse_bool(items[4]);
    if (!count || !memory || !health)
      return fail("card \"" + std::string(part) + "\": " +
                  (!count    ? "count"
                   : !memory ? "memory"
                             : "health") +
                  " is not a " + (!health && count && memory ? "boolean" : "whole number"));
    VgpuCard card;
    card.uuid = std::string(items[0]);
    card.number = *count;
    card.memory = *memory;
    card.type = std::string(items[3]);
    card.nvidia = card.type.find("NVIDIA") != std::string::npos;  // Volcano's checkType
    card.health = *health;
    node.cards_.push_back(std::move(card));
  }
  if (node.cards_.empty()) return fail("no card in it");
  (void)name;
  // MIG needs Volcano's geometry ConfigMap; without one Volcano shares a
  // card registered as "mig" with HAMi-core, and so does Scoria.
  node.mode_ = std::string(kHamiCore);
  node.reorder();
  return node;
}

VgpuFit VgpuNode::held(std::string_view ids, bool* bad) const {
  VgpuFit fit;
  std::vector<size_t> counted;
  for (std::string_view container : split(ids, ';')) {
    std::vector<CardUse> uses;
    for (std::string_view device : split(container, ':')) {
      if (device.find(',') == std::string_view::npos) continue;
      const std::vector<std::string_view> f = split(device, ',');
      const std::optional<uint64_t> mem = f.size() >= 4 ? parse_uint(f[2]) : std::nullopt;
      const std::optional<uint64_t> cores = f.size() >= 4 ? parse_uint(f[3]) : std::nullopt;
      if (!mem || !cores) {
        if (bad != nullptr) *bad = true;
        continue;
      }
      for (size_t i = 0; i < cards_.size(); ++i) {
        if (f[0].find(cards_[i].uuid) == std::string_view::npos) continue;
        if (std::find(counted.begin(), counted.end(), i) == counted.end()) {
          counted.push_back(i);
          uses.push_back(CardUse{i, *mem, *cores});
        }
        break;
      }
    }
    fit.containers.push_back(std::move(uses));
  }
  return fit;
}

std::vector<size_t> card_order(const std::vector<VgpuCard>& cards, std::string_view policy) {
  std::vector<size_t> idx(cards.size());
  std::iota(idx.begin(), idx.end(), size_t{0});
  if (policy == "binpack") {
    std::stable_sort(idx.begin(), idx.end(),
                     [&](size_t a, size_t b) { return cards[a].used_mem > cards[b].used_mem; });
  } else if (policy == "spread") {
    std::stable_sort(idx.begin(), idx.end(),
                     [&](size_t a, size_t b) { return cards[a].used_num < cards[b].used_num; });
  } else {
    std::reverse(idx.begin(), idx.end());
  }
  return idx;
}

double card_score(const VgpuCard& card, std::string_view policy) {
  if (policy == "binpack")
    return card.memory == 0
               ? 0
               : 100.0 * static_cast<double>(card.used_mem) / static_cast<double>(card.memory);
  // Volcano scores after counting the pod on the card, so a spread card
  // never has 0 pods then: spread scores 0 (it still picks the emptiest card).
  if (policy == "spread") return card.used_num == 0 ? 100 : 0;
  return 0;
}

std::optional<VgpuFit> VgpuNode::fit(const VgpuRequest& req, std::string_view policy,
                                     std::string* why, const std::vector<bool>& reserved) const {
  const auto fail = [&](std::string text) -> std::optional<VgpuFit> {
    if (why != nullptr) *why = std::move(text);
    return std::nullopt;
  };
  if (req.mode && *req.mode != mode_)
    return fail("pod required sharing mode " + *req.mode + " is not the same as the node mode " +
                mode_);
  VgpuFit out;
  if (req.containers.empty()) return out;
  std::vector<VgpuCard> cards = cards_;  // tentative: what this pod takes counts for its next
                                         // container
  for (const ContainerRequest& want : req.containers) {
    if (want.nums > cards.size()) return fail("no enough gpu cards on node");
    uint64_t nums = want.nums;
    bool uuid_matched = false;
    std::vector<CardUse> uses;
    for (size_t i : card_order(cards, policy)) {
      VgpuCard& c = cards[i];
      if (!uuid_allowed(req, c.uuid)) continue;
      uuid_matched = true;
      const std::optional<uint64_t> takes =
          card_takes(req, want, c, i < reserved.size() && reserved[i]);
      if (!takes) continue;
      const uint64_t mem = *takes;
      take(c, mem, want.cores);
      if (nums > 0) {
        --nums;
        uses.push_back(CardUse{i, mem, want.cores});
        out.score += card_score(c, policy);
      }
      if (nums == 0) break;
    }
    if (nums > 0) {
      if ((!req.use_uuids.empty() || !req.no_use_uuids.empty()) && !uuid_matched)
        return fail("no GPU matches the UUID constraints of the pod");
      return fail("not enough gpu fitted on this node");
    }
    out.containers.push_back(std::move(uses));
  }
  return out;
}

void VgpuNode::set_policy(std::string_view policy) {
  policy_ = std::string(policy);
  reorder();
}

void VgpuNode::reorder() {
  const std::vector<size_t> order = card_order(cards_, policy_);
  order_.assign(order.begin(), order.end());
}

bool VgpuNode::fits(const VgpuRequest& req, double* score,
                    const std::vector<bool>& reserved) const {
  // The common pod, one container: each card is looked at once and what it
  // takes changes no other card, so the cards need no tentative copy.
  if (req.containers.size() != 1) {
    const auto fit = VgpuNode::fit(req, policy_, nullptr, reserved);
    if (fit && score != nullptr) *score = fit->score;
    return fit.has_value();
  }
  if (req.mode && *req.mode != mode_) return false;
  const ContainerRequest& want = req.containers.front();
  if (want.nums > cards_.size()) return false;
  uint64_t nums = want.nums;
  double total = 0;
  for (const uint32_t i : order_) {
    const VgpuCard& c = cards_[i];
    if (!uuid_allowed(req, c.uuid)) continue;
    const std::optional<uint64_t> mem =
        card_takes(req, want, c, i < reserved.size() && reserved[i]);
    if (!mem) continue;
    if (nums > 0) {
      --nums;
      if (score != nullptr) {
        VgpuCard after;  // only what card_score reads
        after.memory = c.memory;
        after.used_mem = c.used_mem + *mem;
        after.used_num = c.used_num + 1;
        total += card_score(after, policy_);
      }
    }
    if (nums == 0) break;
  }
  if (nums > 0) return false;
  if (score != nullptr) *score = total;
  return true;
}

void VgpuNode::apply(const VgpuFit& fit, const std::string& group) {
  for (const auto& container : fit.containers)
    for (const CardUse& use : container) {
      VgpuCard& c = cards_[use.card];
      take(c, use.mem, use.cores);
      if (!group.empty() && (use.mem > 0 || use.cores > 0)) c.groups.push_back(group);
    }
  reorder();
}

void VgpuNode::release(const VgpuFit& fit, const std::string& group) {
  for (const auto& container : fit.containers)
    for (const CardUse& use : container) {
      VgpuCard& c = cards_[use.card];
      give_back(c, use.mem, use.cores);
      if (const auto it = std::find(c.groups.begin(), c.groups.end(), group);
          !group.empty() && it != c.groups.end())
        c.groups.erase(it);
    }
  reorder();
}

std::string VgpuNode::encode(const VgpuFit& fit) const {
  std::string out;
  for (size_t k = 0; k < fit.containers.size(); ++k) {
    if (k > 0) out += ';';
    for (const CardUse& use : fit.containers[k])
      out += cards_[use.card].uuid + ",NVIDIA," + std::to_string(use.mem) + "," +
             std::to_string(use.cores) + ":";
  }
  return out;
}

}  // namespace scoria_deviceshare
