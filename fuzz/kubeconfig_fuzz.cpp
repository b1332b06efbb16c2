// The kubeconfig reader of the kubernetes source: a file that is refused is
// an InputError naming the file and the field; anything else is a finding.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "kube/client_config.h"
#include "model/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::filesystem::path file =
      std::filesystem::temp_directory_path() /
      ("scoria-kubeconfig-fuzz-" + std::to_string(::getpid()));
  {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  try {
    (void)scoria::kube::load_kubeconfig(file, "");
  } catch (const scoria::InputError&) {
  }
  return 0;
}
