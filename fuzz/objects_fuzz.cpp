// Object files and API bodies (YAML or JSON) through the reader and the
// per-kind decoders, as `simulate`, `apply` and the store read them. A
// refusal is an InputError (a SyntaxError, a FieldError); anything else that
// escapes, a crash or a sanitizer report is a finding.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "input/documents.h"
#include "input/limits.h"
#include "model/error.h"
#include "model/objects.h"
#include "source/object_loader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const std::vector<scoria::input::Document> docs =
        scoria::input::read_documents(text, "fuzz", scoria::input::kApplyLimits);
    scoria::model::ClusterObjects objects;
    scoria::source::decode_objects(docs, "fuzz", objects);
  } catch (const scoria::InputError&) {
    // A refusal, with its message: what bad input should get.
  }
  return 0;
}
