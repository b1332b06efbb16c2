// v1 PersistentVolume: what binding a claim to it reads (size, access modes,
// class, volume mode, the claim it is bound to, the nodes that reach it,
// its CSI driver, its phase), refused where the API server's validation
// refuses it.
#include "decode/kind_decoders.h"
#include "decode/scheduling_terms.h"
#include "decode/storage_fields.h"

namespace scoria::decode {

namespace {

/// status.phase; absent (as in most object files, where no controller has
/// written one), Bound when the volume names its claim, else Available.
model::VolumePhase volume_phase(const FieldReader& r, const Node& status,
                                const FieldPath& status_path, bool claimed) {
  const std::string phase = r.text_field(status, "phase", status_path);
  if (phase.empty()) return claimed ? model::VolumePhase::Bound : model::VolumePhase::Available;
  if (phase == "Pending") return model::VolumePhase::Pending;
  if (phase == "Available") return model::VolumePhase::Available;
  if (phase == "Bound") return model::VolumePhase::Bound;
  if (phase == "Released") return model::VolumePhase::Released;
  if (phase == "Failed") return model::VolumePhase::Failed;
  r.fail(
      status_path.field("phase"),
      quote(phase) + " is not a volume phase; use Pending, Available, Bound, Released or Failed");
}

void read_capacity(const FieldReader& r, const Node& spec, const FieldPath& spec_path,
                   model::PersistentVolume& pv) {
  const FieldPath at = spec_path.field("capacity");
  const Node& capacity = r.map_field(spec, "capacity", spec_path);
  for (const input::NodeEntry& e : capacity.entries()) {
    if (e.key != "storage")
      r.fail(at.field(e.key), quote(e.key) + " is not a capacity of a volume; give storage only");
  }
  const std::optional<double> storage = bytes_field(r, capacity, "storage", at);
  if (!storage) r.fail(at.field("storage"), "is missing; give the volume's size, e.g. 10Gi");
  pv.capacity = *storage;
}

void read_claim_ref(const FieldReader& r, const Node& spec, const FieldPath& spec_path,
                    model::PersistentVolume& pv) {
  const Node& ref = FieldReader::get(spec, "claimRef");
  if (!FieldReader::present(ref)) return;
  const FieldPath at = spec_path.field("claimRef");
  const Node& m = r.mapping(ref, at);
  pv.claim_name = r.text_field(m, "name", at);
  if (pv.claim_name.empty())
    r.fail(at.field("name"),
           "is missing; name the claim the volume is bound to, or remove claimRef");
  pv.claim_namespace = r.text_field(m, "namespace", at);
  pv.claim_uid = r.text_field(m, "uid", at);
}

void read_node_affinity(const FieldReader& r, const Node& spec, const FieldPath& spec_path,
                        model::PersistentVolume& pv) {
  const Node& affinity = FieldReader::get(spec, "nodeAffinity");
  if (!FieldReader::present(affinity)) return;
  const FieldPath at = spec_path.field("nodeAffinity");
  const Node& m = r.mapping(affinity, at);
  const FieldPath req_path = at.field("required");
  const Node& required = FieldReader::get(m, "required");
  if (!FieldReader::present(required))
    r.fail(req_path, "is missing; give required.nodeSelectorTerms, or remove nodeAffinity");
  // The same terms as a pod's required node affinity, checked alike.
  r.each_map(r.mapping(required, req_path), "nodeSelectorTerms", req_path,
             [&](const Node& t, const FieldPath& tp) {
               pv.node_affinity.push_back(selector_term(r, t, tp));
             });
  if (pv.node_affinity.empty())
    r.fail(req_path.field("nodeSelectorTerms"),
           "is empty; give at least one term, or remove nodeAffinity");
}

void read_csi(const FieldReader& r, const Node& spec, const FieldPath& spec_path,
              model::PersistentVolume& pv) {
  const Node& csi = FieldReader::get(spec, "csi");
  if (!FieldReader::present(csi)) return;
  const FieldPath at = spec_path.field("csi");
  const Node& m = r.mapping(csi, at);
  pv.csi_driver = r.text_field(m, "driver", at);
  if (pv.csi_driver.empty())
    r.fail(at.field("driver"), "is missing; name the CSI driver, e.g. ebs.csi.aws.com");
  pv.csi_handle = r.text_field(m, "volumeHandle", at);
  if (pv.csi_handle.empty())
    r.fail(at.field("volumeHandle"), "is missing; give the driver's name for the volume");
}

}  // namespace

model::PersistentVolume decode_persistent_volume(const ObjectFields& f) {
  const FieldReader& r = f.r;
  model::PersistentVolume pv;
  pv.labels = r.string_map(f.meta, "labels", f.meta_path);
  pv.annotations = r.string_map(f.meta, "annotations", f.meta_path);
  pv.deleting = !r.text_field(f.meta, "deletionTimestamp", f.meta_path).empty();
  const FieldPath spec_path = f.root.field("spec");
  const Node& spec = r.map_field(f.obj, "spec", f.root);
  read_capacity(r, spec, spec_path, pv);
  pv.access_modes = access_modes(r, spec, spec_path);
  pv.storage_class = r.text_field(spec, "storageClassName", spec_path);
  pv.block = block_mode(r, spec, spec_path);
  read_claim_ref(r, spec, spec_path, pv);
  read_node_affinity(r, spec, spec_path, pv);
  read_csi(r, spec, spec_path, pv);
  const FieldPath status_path = f.root.field("status");
  const Node& status = r.map_field(f.obj, "status", f.root);
  pv.phase = volume_phase(r, status, status_path, pv.claimed());
  return pv;
}

}  // namespace scoria::decode
