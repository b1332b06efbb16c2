// The host's service table as a plugin receives it: it announces its true
// size and version, and every function in it can be called. A plugin only
// checks SCORIA_HOST_HAS before calling, never for NULL, so an empty slot
// would crash the first plugin that uses it.
#include <scoria/scoria.h>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>

#include "abi/host_api.h"

namespace {

using scoria::abi::host_api;

TEST(HostTable, AnnouncesItsSizeAndVersion) {
  const scoria_host_api* api = host_api();
  ASSERT_NE(api, nullptr);
  EXPECT_EQ(api->struct_size, sizeof(scoria_host_api));
  EXPECT_EQ(api->abi_major, SCORIA_ABI_VERSION_MAJOR);
  EXPECT_EQ(api->abi_minor, SCORIA_ABI_VERSION_MINOR);
}

// Every field after the version header is a function pointer, so walking
// the table slot by slot also covers functions appended later.
TEST(HostTable, EveryFunctionIsSet) {
  using Fn = void (*)();
  const scoria_host_api* api = host_api();
  ASSERT_NE(api, nullptr);
  const auto* bytes = reinterpret_cast<const unsigned char*>(api);
  size_t slots = 0;
  for (size_t at = offsetof(scoria_host_api, log); at + sizeof(Fn) <= api->struct_size;
       at += sizeof(Fn)) {
    Fn fn = nullptr;
    std::memcpy(&fn, bytes + at, sizeof fn);
    EXPECT_NE(fn, nullptr) << "host table slot at offset " << at << " is empty";
    ++slots;
  }
  EXPECT_EQ(slots, (sizeof(scoria_host_api) - offsetof(scoria_host_api, log)) / sizeof(Fn));
}

TEST(HostTable, HostHasSeesEveryFieldOfAFullTable) {
  const scoria_host_api* api = host_api();
  ASSERT_NE(api, nullptr);
  EXPECT_TRUE(SCORIA_HOST_HAS(api, log));
  EXPECT_TRUE(SCORIA_HOST_HAS(api, statement_size));
}

// What a plugin built against a newer minor sees on an older host: a table
// that ends before the function it wants.
TEST(HostTable, HostHasRefusesAFieldBeyondAShorterTable) {
  scoria_host_api older = *host_api();
  older.struct_size = offsetof(scoria_host_api, statement_size);
  const scoria_host_api* api = &older;
  EXPECT_TRUE(SCORIA_HOST_HAS(api, statement_discard));
  EXPECT_FALSE(SCORIA_HOST_HAS(api, statement_size));
}

}  // namespace
