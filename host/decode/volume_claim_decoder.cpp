// v1 PersistentVolumeClaim: what binding it reads (access modes, class,
// volume mode, the size asked for, the volume it names or selects, its
// phase) and who owns it (a generic ephemeral volume's claim is its pod's),
// refused where the API server's validation refuses it.
#include "decode/kind_decoders.h"
#include "decode/scheduling_terms.h"
#include "decode/storage_fields.h"

namespace scoria::decode {

namespace {

// Written by the PV controller once it has bound the claim both ways.
constexpr std::string_view kBindCompletedKey = "pv.kubernetes.io/bind-completed";

/// status.phase; absent (as in most object files), Bound when the claim
/// names its volume and says the binding completed, else Pending.
model::ClaimPhase claim_phase(const FieldReader& r, const Node& status,
                              const FieldPath& status_path, const model::PersistentVolumeClaim& c) {
  const std::string phase = r.text_field(status, "phase", status_path);
  if (phase.empty()) {
    const bool completed = c.annotations.count(std::string(kBindCompletedKey)) > 0;
    return !c.volume_name.empty() && completed ? model::ClaimPhase::Bound
                                               : model::ClaimPhase::Pending;
  }
  if (phase == "Pending") return model::ClaimPhase::Pending;
  if (phase == "Bound") return model::ClaimPhase::Bound;
  if (phase == "Lost") return model::ClaimPhase::Lost;
  r.fail(status_path.field("phase"),
         quote(phase) + " is not a claim phase; use Pending, Bound or Lost");
}

void read_request(const FieldReader& r, const Node& spec, const FieldPath& spec_path,
                  model::PersistentVolumeClaim& c) {
  const FieldPath res_path = spec_path.field("resources");
  const Node& resources = r.map_field(spec, "resources", spec_path);
  const FieldPath req_path = res_path.field("requests");
  const Node& requests = r.map_field(resources, "requests", res_path);
  const std::optional<double> storage = bytes_field(r, requests, "storage", req_path);
  if (!storage)
    r.fail(req_path.field("storage"), "is missing; give the size the claim asks for, e.g. 10Gi");
  c.request = *storage;
}

}  // namespace

model::PersistentVolumeClaim decode_volume_claim(const ObjectFields& f) {
  const FieldReader& r = f.r;
  model::PersistentVolumeClaim c;
  read_claim_metadata(f, c);
  const FieldPath spec_path = f.root.field("spec");
  const Node& spec = r.map_field(f.obj, "spec", f.root);
  c.access_modes = access_modes(r, spec, spec_path);
  // Absent and empty differ: the default class, or no class at all.
  if (FieldReader::present(FieldReader::get(spec, "storageClassName")))
    c.storage_class = r.text_field(spec, "storageClassName", spec_path);
  c.block = block_mode(r, spec, spec_path);
  read_request(r, spec, spec_path, c);
  c.volume_name = r.text_field(spec, "volumeName", spec_path);
  const Node& selector = FieldReader::get(spec, "selector");
  if (FieldReader::present(selector))
    c.selector = label_selector(r, r.mapping(selector, spec_path.field("selector")),
                                spec_path.field("selector"));
  const FieldPath status_path = f.root.field("status");
  const Node& status = r.map_field(f.obj, "status", f.root);
  c.phase = claim_phase(r, status, status_path, c);
  return c;
}

}  // namespace scoria::decode
