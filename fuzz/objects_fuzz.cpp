// Object files and API bodies (YAML or JSON) through the reader, the
// per-kind decoders and the unknown-field check (found, and removed as the
// store removes them), as `simulate`, `apply` and the store read them. A
// refusal is an InputError (a SyntaxError, a FieldError); anything else that
// escapes, a crash or a sanitizer report is a finding. So is a text the
// strict-JSON fast path reads differently from the YAML reader.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "input/documents.h"
#include "input/json_reader.h"
#include "input/limits.h"
#include "model/cluster_objects.h"
#include "model/error.h"
#include "model/objects.h"
#include "schema/unknown_fields.h"
#include "source/document_fields.h"
#include "source/object_loader.h"

namespace {

// What the fast path accepts, the YAML reader (which a leading "---" line
// forces) must read to the same tree.
void check_json_equivalence(std::string_view text) {
  using namespace scoria::input;
  try {
    check_text(text, "fuzz", kApplyLimits);
  } catch (const scoria::InputError&) {
    return;
  }
  // The readers strip a byte order mark before either path sees the text
  // (stream_documents); "---\n" must not land in front of one.
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  const auto fast = read_strict_json(text, kApplyLimits);
  if (!fast) return;
  std::vector<Document> slow;
  try {
    slow = read_documents("---\n" + std::string(text), "fuzz", kApplyLimits);
  } catch (const scoria::InputError&) {
    std::abort();  // accepted as JSON, refused as YAML
  }
  if (slow.size() != 1 || slow[0].value.dump() != fast->dump()) std::abort();
}

/// What a reader made of a text: each object's kind, name and JSON.
std::string summary(const scoria::model::ClusterObjects& o) {
  std::string out;
  for (const auto& n : o.nodes) out += "Node " + n.name + "\n";
  for (const auto& p : o.pods) out += "Pod " + p.key() + " " + p.json + "\n";
  for (const auto& g : o.pod_groups) out += "PodGroup " + g.key() + "\n";
  for (const auto& q : o.queues) out += "Queue " + q.name + " " + q.json + "\n";
  for (const auto& b : o.disruption_budgets) out += "PDB " + b.key() + " " + b.json + "\n";
  for (const auto& q : o.resource_quotas) out += "Quota " + q.key() + " " + q.json + "\n";
  for (const auto& t : o.numa_topologies) out += "Numa " + t.key() + " " + t.json + "\n";
  for (const auto& h : o.hyper_nodes) out += "HyperNode " + h.name + " " + h.json + "\n";
  for (const auto& v : o.volumes) out += "PV " + v.key() + " " + v.json + "\n";
  for (const auto& c : o.claims) out += "PVC " + c.key() + " " + c.json + "\n";
  for (const auto& c : o.storage_classes) out += "SC " + c.key() + " " + c.json + "\n";
  for (const auto& n : o.csi_nodes) out += "CSINode " + n.key() + " " + n.json + "\n";
  for (const auto& d : o.csi_drivers) out += "CSIDriver " + d.key() + " " + d.json + "\n";
  for (const auto& c : o.storage_capacities) out += "Capacity " + c.key() + " " + c.json + "\n";
  for (const auto& c : o.device_classes) out += "DeviceClass " + c.key() + " " + c.json + "\n";
  for (const auto& s : o.resource_slices) out += "Slice " + s.key() + " " + s.json + "\n";
  for (const auto& c : o.resource_claims) out += "Claim " + c.key() + " " + c.json + "\n";
  for (const auto& t : o.claim_templates) out += "Template " + t.key() + " " + t.json + "\n";
  return out;
}

// The object files' path (documents straight to Nodes, never JSON values)
// must read what the API's path (documents as JSON values) reads, when both
// take the text (their limits differ).
void check_file_path(std::string_view text, const std::string& via_documents) {
  scoria::model::ClusterObjects objects;
  try {
    scoria::source::parse_objects(text, "fuzz", objects);
  } catch (const scoria::InputError&) {
    return;
  }
  if (summary(objects) != via_documents) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  check_json_equivalence(text);
  try {
    std::vector<scoria::input::Document> docs =
        scoria::input::read_documents(text, "fuzz", scoria::input::kApplyLimits);
    scoria::model::ClusterObjects objects;
    const scoria::source::FieldChecks warn{scoria::schema::FieldValidation::kWarn,
                                           [](const std::string&) {}};
    scoria::source::decode_objects(docs, "fuzz", objects, warn);
    check_file_path(text, summary(objects));
    for (scoria::input::Document& d : docs) {
      scoria::source::remove_unknown_fields(d.value);
      if (!scoria::source::unknown_field_messages(d.value, "fuzz", d.number).empty())
        std::abort();  // removed, yet still found
    }
  } catch (const scoria::InputError&) {
    // A refusal, with its message: what bad input should get.
  }
  return 0;
}
