// avoid-label: a predicate. Keeps pods off the nodes that carry a label, such
// as nodes being drained for maintenance: `label` names it, and `value`, when
// set, refuses only nodes where the label has that value.
#include <scoria/scoria.hpp>

#include <cstdint>
#include <iterator>
#include <optional>
#include <string>

namespace {

constexpr scoria_arg_spec kArgs[] = {
    scoria::declare_arg(SCORIA_ARG_STRING, "label", "scoria.dev/maintenance",
                        "nodes carrying this label are refused"),
    scoria::declare_arg(SCORIA_ARG_STRING, "value", nullptr,
                        "refuse only where the label has this value (unset: any value)"),
};

struct AvoidLabel {
  // The host passes declared defaults, so `label` is always there.
  explicit AvoidLabel(const scoria_args* args)
      : label(scoria::arg_string(args, "label").value_or("")),
        value(scoria::arg_string(args, "value")),
        reason(scoria::api().reason_intern(scoria::str("node(s) had label " + label))) {}
  std::string label;
  std::optional<std::string> value;
  uint32_t reason;  // interned once: the same id for the life of the host
};

// May run on several threads at once: it only reads.
scoria_code predicate(void* self, const scoria_task* /*task*/, const scoria_node* node,
                      uint32_t* reason) {
  const auto& p = *static_cast<const AvoidLabel*>(self);
  scoria_str found{};
  if (scoria::api().node_label(node, scoria::str(p.label), &found) != SCORIA_OK) return SCORIA_OK;
  if (p.value && scoria::view(found) != *p.value) return SCORIA_OK;
  *reason = p.reason;
  // Evicting pods from the node would not change its labels.
  return SCORIA_UNSCHEDULABLE_AND_UNRESOLVABLE;
}

scoria_code on_session_open(void* self, scoria_session* /*ssn*/, scoria_hooks* hooks) {
  hooks->user_data = self;
  hooks->on_predicate = predicate;
  return SCORIA_OK;
}

const scoria_descriptor kDescriptor = {
    .struct_size = sizeof(scoria_descriptor),
    .abi_major = SCORIA_ABI_VERSION_MAJOR,
    .abi_minor = SCORIA_ABI_VERSION_MINOR,
    .name = "avoid-label",
    .kind = SCORIA_KIND_PLUGIN,
    .flags = SCORIA_FLAG_DECLARES_ARGS,
    .version = "1.0.0",
    .description = "Keeps pods off nodes that carry a label",
    .on_create = scoria::create_instance<AvoidLabel>,
    .on_destroy = scoria::destroy_instance<AvoidLabel>,
    .on_session_open = on_session_open,
    .on_session_close = nullptr,
    .on_execute = nullptr,
    .args = kArgs,
    .arg_count = std::size(kArgs),
};

}  // namespace

SCORIA_DEFINE_PLUGIN(kDescriptor)
