// label-score: a node order. A node's label `label` holds its score, a whole
// number from 0 to 100 (larger values count 100; a missing or unreadable
// label 0), which is multiplied by `weight`: the scale of nodeorder's and
// binpack's scores, so that weights compare across all three.
#include <scoria/scoria.hpp>

#include <cstdint>
#include <iterator>
#include <string>
#include <string_view>

namespace {

constexpr scoria_arg_spec kWeight = scoria::declare_arg(
    SCORIA_ARG_INT, "weight", "1", "what the label's score (0 to 100) is multiplied by");

constexpr scoria_arg_spec kArgs[] = {
    scoria::declare_arg(SCORIA_ARG_STRING, "label", "scoria.dev/score",
                        "the node label holding a score from 0 to 100"),
    scoria::with_max(scoria::with_min(kWeight, 0), 100),
};

struct LabelScore {
  explicit LabelScore(const scoria_args* args)
      : label(scoria::arg_string(args, "label").value_or("")),
        weight(scoria::arg_int(args, "weight", 1)) {}
  std::string label;
  int64_t weight;
};

// "0".."100" as a number, more than 100 as 100; anything else 0.
int64_t score_of(std::string_view text) {
  if (text.empty() || text.size() > 9) return 0;
  int64_t n = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') return 0;
    n = n * 10 + (c - '0');
  }
  return n < 100 ? n : 100;
}

// May run on several threads at once: it only reads.
scoria_code node_order(void* self, const scoria_task* /*task*/, const scoria_node* node,
                       double* score) {
  const auto& p = *static_cast<const LabelScore*>(self);
  scoria_str value{};
  const bool found = scoria::api().node_label(node, scoria::str(p.label), &value) == SCORIA_OK;
  *score = static_cast<double>((found ? score_of(scoria::view(value)) : 0) * p.weight);
  return SCORIA_OK;
}

scoria_code on_session_open(void* self, scoria_session* /*ssn*/, scoria_hooks* hooks) {
  hooks->user_data = self;
  hooks->on_node_order = node_order;
  return SCORIA_OK;
}

const scoria_descriptor kDescriptor = {
    .struct_size = sizeof(scoria_descriptor),
    .abi_major = SCORIA_ABI_VERSION_MAJOR,
    .abi_minor = SCORIA_ABI_VERSION_MINOR,
    .name = "label-score",
    .kind = SCORIA_KIND_PLUGIN,
    .flags = SCORIA_FLAG_DECLARES_ARGS,
    .version = "1.0.0",
    .description = "Scores nodes 0-100 by a label, times weight",
    .on_create = scoria::create_instance<LabelScore>,
    .on_destroy = scoria::destroy_instance<LabelScore>,
    .on_session_open = on_session_open,
    .on_session_close = nullptr,
    .on_execute = nullptr,
    .args = kArgs,
    .arg_count = std::size(kArgs),
};

}  // namespace

SCORIA_DEFINE_PLUGIN(kDescriptor)
