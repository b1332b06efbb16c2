#include "cache/equivalence_key.h"

#include <array>
#include <nlohmann/json.hpp>
#include <string_view>
#include <utility>
#include <vector>

namespace scoria::cache {

namespace {

constexpr std::array<std::string_view, 7> kIdentity = {"name",
                                                       "generateName",
                                                       "uid",
                                                       "resourceVersion",
                                                       "creationTimestamp",
                                                       "ownerReferences",
                                                       "managedFields"};
constexpr std::string_view kTaskIndex = "volcano.sh/task-index";  // label and annotation
constexpr std::array<std::string_view, 3> kAnnotations = {
    "scheduling.k8s.io/group-name", "scheduling.volcano.sh/group-name", kTaskIndex};
constexpr std::array<std::string_view, 1> kLabels = {kTaskIndex};
// The pod's place rather than its needs: its node, its DNS names, and the
// scheduling.k8s.io PodGroup it joins (as the group-name annotations are
// left out above).
constexpr std::array<std::string_view, 4> kPlacement = {"nodeName", "hostname", "subdomain",
                                                        "schedulingGroup"};

bool among(std::string_view key, auto keys) {
  for (std::string_view k : keys)
    if (k == key) return true;
  return false;
}

// Writes the parser's events as they come, without those of the values
// left out, as a code no two different event sequences share: no tree is
// built (a week-long run asks this of every pod that arrives). Objects
// whose members come in another order, or numbers written otherwise, are
// other keys: other classes, each answered alike (never one class for two
// pods that differ in what plugins read).
class KeyWriter final : public nlohmann::json_sax<nlohmann::json> {
 public:
  explicit KeyWriter(bool without_claim_names) : without_claim_names_(without_claim_names) {
    if (without_claim_names_) out_ += '~';  // no equivalence_key starts so
  }

  /// The key, or empty if the JSON was not an object or did not parse.
  std::string take() { return failed_ || !object_ ? std::string() : std::move(out_); }

  bool null() override { return value("n"); }
  bool boolean(bool v) override { return value(v ? "T" : "F"); }
  bool number_integer(number_integer_t v) override { return value("i", std::to_string(v)); }
  bool number_unsigned(number_unsigned_t v) override { return value("u", std::to_string(v)); }
  bool number_float(number_float_t, const string_t& token) override { return value("f", token); }
  bool string(string_t& v) override { return value("s", v, /*counted=*/true); }
  bool binary(binary_t&) override { return value("b"); }
  bool start_object(std::size_t) override {
    if (!opens()) return true;
    if (stack_.empty()) object_ = true;
    stack_.push_back(stack_.empty()                        ? Where::kTop
                     : stack_.back() == Where::kVolumeList ? Where::kVolume
                                                           : next_);
    next_ = Where::kOther;
    out_ += '{';
    return true;
  }
  bool end_object() override { return closes('}'); }
  bool start_array(std::size_t) override {
    if (!opens()) return true;
    stack_.push_back(next_ == Where::kVolumeList ? Where::kVolumeList : Where::kOther);
    next_ = Where::kOther;
    out_ += '[';
    return true;
  }
  bool end_array() override { return closes(']'); }
  bool key(string_t& k) override {
    if (skipping_ > 0) return true;
    const Where w = stack_.back();
    if ((w == Where::kTop && k == "status") || (w == Where::kMetadata && among(k, kIdentity)) ||
        (w == Where::kAnnotationMap && among(k, kAnnotations)) ||
        (w == Where::kLabelMap && among(k, kLabels)) ||
        (w == Where::kSpec && among(k, kPlacement)) ||
        (w == Where::kClaimSource && k == "claimName" && without_claim_names_)) {
      drop_next_ = true;
      return true;
    }
    next_ = w == Where::kTop && k == "metadata"                   ? Where::kMetadata
            : w == Where::kTop && k == "spec"                     ? Where::kSpec
            : w == Where::kMetadata && k == "annotations"         ? Where::kAnnotationMap
            : w == Where::kMetadata && k == "labels"              ? Where::kLabelMap
            : w == Where::kSpec && k == "volumes"                 ? Where::kVolumeList
            : w == Where::kVolume && k == "persistentVolumeClaim" ? Where::kClaimSource
                                                                  : Where::kOther;
    out_ += 'k';
    append(k, /*counted=*/true);
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    failed_ = true;
    return false;
  }

 private:
  // Where an object sits: the ones values are left out of.
  // kVolumeList: spec.volumes; kVolume: one of them; kClaimSource: its
  // persistentVolumeClaim.
  enum class Where : uint8_t {
    kOther,
    kTop,
    kMetadata,
    kAnnotationMap,
    kLabelMap,
    kSpec,
    kVolumeList,
    kVolume,
    kClaimSource
  };

  // A value: written unless it is left out (or inside one that is).
  bool admitted() {
    if (skipping_ > 0) return false;
    if (drop_next_) {
      drop_next_ = false;
      return false;
    }
    return true;
  }
  // A scalar: its tag, then its text (a number's ended by ';', a string's
  // counted), so that no two event sequences write the same.
  bool value(std::string_view tag, std::string_view text = {}, bool counted = false) {
    if (stack_.empty()) failed_ = true;  // not an object
    if (!admitted()) return true;
    next_ = Where::kOther;
    out_ += tag;
    append(text, counted);
    return true;
  }
  void append(std::string_view text, bool counted) {
    if (counted) {
      out_ += std::to_string(text.size());
      out_ += ':';
      out_ += text;
    } else if (!text.empty()) {
      out_ += text;
      out_ += ';';
    }
  }
  // A container begins: false if it is left out (its events are skipped).
  bool opens() {
    if (skipping_ > 0) {
      ++skipping_;
      return false;
    }
    if (drop_next_) {
      drop_next_ = false;
      skipping_ = 1;
      return false;
    }
    return true;
  }
  bool closes(char c) {
    if (skipping_ > 0) {
      --skipping_;
      return true;
    }
    stack_.pop_back();
    out_ += c;
    return true;
  }

  std::string out_;
  std::vector<Where> stack_;
  Where next_ = Where::kOther;
  int skipping_ = 0;
  bool drop_next_ = false;
  bool object_ = false;
  bool failed_ = false;
  bool without_claim_names_ = false;
};

std::string key_of(const model::Pod& pod, bool without_claim_names) {
  if (pod.json.empty()) return {};
  KeyWriter writer(without_claim_names);
  nlohmann::json::sax_parse(pod.json, &writer);
  return writer.take();
}

}  // namespace

std::string equivalence_key(const model::Pod& pod) { return key_of(pod, false); }

std::string equivalence_key_without_claim_names(const model::Pod& pod) { return key_of(pod, true); }

}  // namespace scoria::cache
