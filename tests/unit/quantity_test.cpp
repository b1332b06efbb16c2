#include "model/quantity.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>

namespace scoria::model {
namespace {

struct Valid {
  const char* text;
  double value;
};

class ValidQuantity : public ::testing::TestWithParam<Valid> {};

TEST_P(ValidQuantity, ParsesToItsValue) {
  const Valid& c = GetParam();
  EXPECT_DOUBLE_EQ(parse_quantity(c.text), c.value) << c.text;
}

INSTANTIATE_TEST_SUITE_P(
    Kubernetes, ValidQuantity,
    ::testing::Values(
        // Plain numbers, signs and fractions.
        Valid{"0", 0}, Valid{"2", 2}, Valid{"+2", 2}, Valid{"-2", -2}, Valid{"0.5", 0.5},
        Valid{".5", 0.5}, Valid{"1.", 1}, Valid{"007", 7}, Valid{"-0.25", -0.25},
        // Decimal SI suffixes.
        Valid{"1n", 1e-9}, Valid{"1u", 1e-6}, Valid{"500m", 0.5}, Valid{"1500m", 1.5},
        Valid{"1k", 1e3}, Valid{"1M", 1e6}, Valid{"1G", 1e9}, Valid{"1T", 1e12}, Valid{"1P", 1e15},
        Valid{"1E", 1e18}, Valid{"0.1k", 100},
        // Binary SI suffixes.
        Valid{"1Ki", 1024}, Valid{"1Mi", 1048576}, Valid{"4Gi", 4294967296.0},
        Valid{"1.5Gi", 1610612736.0}, Valid{"1Ti", 1099511627776.0},
        Valid{"1Pi", 1125899906842624.0}, Valid{"1Ei", 1152921504606846976.0}, Valid{"0.5Ki", 512},
        // Decimal exponents.
        Valid{"1e3", 1000}, Valid{"1E3", 1000}, Valid{"1e+3", 1000}, Valid{"1e-3", 0.001},
        Valid{"2.5e2", 250}, Valid{"-1e3", -1000}));

class InvalidQuantity : public ::testing::TestWithParam<const char*> {};

TEST_P(InvalidQuantity, IsRejectedWithExamples) {
  const std::string text = GetParam();
  try {
    parse_quantity(text);
    FAIL() << "accepted \"" << text << "\"";
  } catch (const std::invalid_argument& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("not a quantity"), std::string::npos) << msg;
    EXPECT_NE(msg.find("e.g. \"500m\""), std::string::npos) << msg;
    if (!text.empty()) {
      EXPECT_NE(msg.find("\"" + text + "\""), std::string::npos) << msg;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Garbage, InvalidQuantity,
                         ::testing::Values("", "abc", "1x", "--1", "1.2.3", "-", "+", ".", "m",
                                           "Gi", "1e", "1e+", "1e1.5", "1e+-3", "1 Gi", " 1", "1K",
                                           "1mi", "1Gb", "0x10", "1e99999999999999999999",
                                           "1e400"));

// Kubernetes caps a quantity at 2^63-1 in its unit; beyond it Scoria refuses
// rather than scale a finite double on to infinity (cpu to millicores).
class TooLargeQuantity : public ::testing::TestWithParam<const char*> {};

TEST_P(TooLargeQuantity, IsRefusedNamingTheBound) {
  const std::string text = GetParam();
  try {
    const double q = parse_quantity(text);
    FAIL() << "accepted \"" << text << "\" as " << q;
  } catch (const std::invalid_argument& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("\"" + text + "\" is not a quantity (it is too large"), std::string::npos)
        << msg;
    EXPECT_NE(msg.find("2^63-1"), std::string::npos) << msg;
  }
}

INSTANTIATE_TEST_SUITE_P(BeyondKubernetesCap, TooLargeQuantity,
                         ::testing::Values("1e307", "-1e307", "1e19", "9300000000000000000000m",
                                           "9Ei", "8193Pi", "9999999999999999999999Ei",
                                           "10000000000000000000", "1.8e308", "0.00001e24"));

TEST(Quantity, KubernetesCapItselfIsAccepted) {
  // 2^63-1 is the largest quantity Kubernetes keeps as written; "8Ei" is 2^63.
  EXPECT_EQ(parse_quantity("9223372036854775807"), 0x1p63);
  EXPECT_EQ(parse_quantity("8Ei"), 0x1p63);
  EXPECT_EQ(parse_quantity("-8Ei"), -0x1p63);
  EXPECT_EQ(parse_quantity("9e18"), 9e18);
  EXPECT_EQ(parse_quantity("1Ei"), 0x1p60);
  // Scaled to milli-units it stays finite.
  EXPECT_TRUE(std::isfinite(parse_quantity("9e18") * 1000));
}

TEST(Quantity, UnknownSuffixIsNamed) {
  try {
    parse_quantity("4x");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("unknown suffix \"x\""), std::string::npos) << e.what();
  }
}

TEST(Quantity, DecimalsAreRoundedOnce) {
  // "0.29" times 1000 must land on 290 millicores, not beside it.
  EXPECT_EQ(parse_quantity("0.29") * 1000, 290);
  EXPECT_EQ(parse_quantity("290m"), parse_quantity("0.29"));
}

TEST(Quantity, FormatsCpuInCoresOrMillicores) {
  EXPECT_EQ(format_quantity("cpu", 4000), "4");
  EXPECT_EQ(format_quantity("cpu", 500), "500m");
  EXPECT_EQ(format_quantity("cpu", 1500), "1500m");
  EXPECT_EQ(format_quantity("cpu", 0), "0");
  EXPECT_EQ(format_quantity("cpu", 64000), "64");
}

TEST(Quantity, FormatsMemoryWithTheLargestExactBinarySuffix) {
  EXPECT_EQ(format_quantity("memory", 8.0 * 1024 * 1024 * 1024), "8Gi");
  EXPECT_EQ(format_quantity("memory", 1536.0 * 1024 * 1024), "1536Mi");
  EXPECT_EQ(format_quantity("memory", 1024), "1Ki");
  EXPECT_EQ(format_quantity("memory", 2.0 * 1024 * 1024 * 1024 * 1024), "2Ti");
  EXPECT_EQ(format_quantity("memory", 1000), "1000");
  EXPECT_EQ(format_quantity("memory", 0), "0");
}

TEST(Quantity, FormatsPodsAndExtendedResources) {
  EXPECT_EQ(format_quantity("pods", 110), "110");
  EXPECT_EQ(format_quantity("nvidia.com/gpu", 2000), "2");
  EXPECT_EQ(format_quantity("nvidia.com/gpu", 500), "500m");
  EXPECT_EQ(format_quantity("example.com/foo", 0), "0");
}

TEST(Quantity, FormattingRoundTrips) {
  // Scoria units -> text -> parse -> Scoria units.
  for (double milli : {0.0, 1.0, 250.0, 1000.0, 2500.0, 96000.0}) {
    EXPECT_DOUBLE_EQ(parse_quantity(format_quantity("cpu", milli)) * 1000, milli) << milli;
    EXPECT_DOUBLE_EQ(parse_quantity(format_quantity("nvidia.com/gpu", milli)) * 1000, milli);
  }
  for (double bytes : {0.0, 1.0, 1000.0, 1024.0, 1536.0 * 1048576, 64.0 * 1073741824,
                       3.0 * 1099511627776.0, 123456789.0}) {
    EXPECT_DOUBLE_EQ(parse_quantity(format_quantity("memory", bytes)), bytes) << bytes;
  }
  for (const char* text : {"4", "500m", "8Gi", "1536Mi"}) {
    const std::string name = std::string(text).find('i') != std::string::npos ? "memory" : "cpu";
    const double units = name == "cpu" ? parse_quantity(text) * 1000 : parse_quantity(text);
    EXPECT_EQ(format_quantity(name, units), text);
  }
}

}  // namespace
}  // namespace scoria::model
