// What the host throws never reaches the plugin that called the service
// table: each entry answers its failure value instead, and the throw is
// logged once per function.
#include "abi/guarded.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace {

using scoria::abi::Guarded;
using scoria::abi::GuardedAnswer;

int g_calls = 0;

scoria_code code_that_throws(int) { throw std::runtime_error("no room"); }
const char* pointer_that_throws() { throw 42; }
void void_that_throws(int* seen) {
  ++*seen;
  throw std::bad_alloc();
}
int question_that_throws() { throw std::logic_error("cannot tell"); }
int64_t sums(int a, int64_t b) {
  ++g_calls;
  return a + b;
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(Guarded, AThrowBecomesTheFailureValueAndOneLogLine) {
  testing::internal::CaptureStderr();
  EXPECT_EQ(Guarded<&code_that_throws>::call(1), SCORIA_ERROR);
  EXPECT_EQ(Guarded<&code_that_throws>::call(2), SCORIA_ERROR);
  EXPECT_EQ(Guarded<&pointer_that_throws>::call(), nullptr);
  int seen = 0;
  Guarded<&void_that_throws>::call(&seen);
  EXPECT_EQ(seen, 1);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(count(err, "code_that_throws, called by a plugin, threw (no room)"), 1u) << err;
  EXPECT_EQ(count(err,
                  "pointer_that_throws, called by a plugin, threw (an exception that is "
                  "not a std::exception)"),
            1u)
      << err;
  EXPECT_EQ(count(err, "void_that_throws, called by a plugin, threw (std::bad_alloc)"), 1u) << err;
}

TEST(Guarded, AQuestionAnswersItsClosedAnswer) {
  testing::internal::CaptureStderr();
  EXPECT_EQ(Guarded<&question_that_throws>::call(), 0);
  EXPECT_EQ((GuardedAnswer<&question_that_throws, 1>::call()), 1);
  testing::internal::GetCapturedStderr();
}

TEST(Guarded, WhatDoesNotThrowPassesThrough) {
  g_calls = 0;
  EXPECT_EQ(Guarded<&sums>::call(2, int64_t{40}), 42);
  EXPECT_EQ(g_calls, 1);
}

}  // namespace
