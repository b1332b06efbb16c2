// CEL as DRA selectors use it: the values of expressions (from the CEL
// spec's conformance cases: literals, operators, precedence, the error
// semantics of && and ||, heterogeneous numeric equality, macros and the
// string functions), the refusals of the parser with their positions, and
// the bounds (nesting, length, cost) a hostile expression meets.
#include <gtest/gtest.h>

#include <string>
#include <variant>

#include "cel/program.h"

namespace scoria::cel {
namespace {

Variables device_variables() {
  const Map gpu = {{Value("model"), Value("A100")},
                   {Value("memory"), Value(int64_t{40})},
                   {Value("mig"), Value(true)},
                   {Value("index"), Value(uint64_t{3})}};
  return {{"device",
           Value(Map{{Value("driver"), Value("gpu.example.com")},
                     {Value("attributes"), Value(Map{{Value("gpu.example.com"), Value(gpu)}})}})}};
}

Value eval(const std::string& text, const Variables& vars = device_variables()) {
  auto compiled = Program::compile(text);
  if (auto* e = std::get_if<ParseError>(&compiled)) return Error{"parse: " + e->message};
  return std::get<Program>(compiled).evaluate(vars);
}

std::string shown(const std::string& text) { return debug_string(eval(text)); }

std::string parse_error(const std::string& text) {
  auto compiled = Program::compile(text);
  if (auto* e = std::get_if<ParseError>(&compiled)) return e->message;
  return "parsed";
}

TEST(Cel, Literals) {
  EXPECT_EQ(shown("42"), "42");
  EXPECT_EQ(shown("-9223372036854775808"), "-9223372036854775808");
  EXPECT_EQ(shown("0x1F"), "31");
  EXPECT_EQ(shown("7u"), "7u");
  EXPECT_EQ(shown("2.5e1"), "25");
  EXPECT_EQ(shown("'it\\'s'"), "\"it's\"");
  EXPECT_EQ(shown("\"\\u00e9\""), "\"\xC3\xA9\"");
  EXPECT_EQ(shown("r'a\\nb'"), "\"a\\nb\"");
  EXPECT_EQ(shown("'''two\nlines'''"), "\"two\nlines\"");
  EXPECT_EQ(shown("b'\\x00\\xff'.size()"), "2");
  EXPECT_EQ(shown("[true, false, null]"), "[true, false, null]");
  EXPECT_EQ(shown("{'a': 1, 2: 'b'}"), "{\"a\": 1, 2: \"b\"}");
}

TEST(Cel, ArithmeticAndPrecedence) {
  EXPECT_EQ(shown("1 + 2 * 3 - 4 / 2"), "5");
  EXPECT_EQ(shown("(1 + 2) * 3 % 4"), "1");
  EXPECT_EQ(shown("-2 * 3"), "-6");
  EXPECT_EQ(shown("7 / 2"), "3");
  EXPECT_EQ(shown("-7 % 3"), "-1");
  EXPECT_EQ(shown("1.5 * 2.0"), "3");
  EXPECT_EQ(shown("'ab' + 'cd'"), "\"abcd\"");
  EXPECT_EQ(shown("[1] + [2, 3]"), "[1, 2, 3]");
  EXPECT_EQ(shown("9223372036854775807 + 1"), "error(integer overflow)");
  EXPECT_EQ(shown("1 / 0"), "error(division by zero)");
  EXPECT_EQ(shown("0u - 1u"), "error(integer overflow)");
  // No implicit conversion between numeric types.
  EXPECT_EQ(shown("1 + 1u"), "error(no such overload: int + uint)");
  EXPECT_EQ(shown("1 + 1.0"), "error(no such overload: int + double)");
}

TEST(Cel, ComparisonsAcrossNumericTypes) {
  EXPECT_EQ(shown("1 == 1.0"), "true");
  EXPECT_EQ(shown("1u == 1"), "true");
  EXPECT_EQ(shown("-1 < 0u"), "true");
  EXPECT_EQ(shown("9223372036854775807 < 9223372036854775808.0"), "true");
  EXPECT_EQ(shown("2 > 1.5"), "true");
  EXPECT_EQ(shown("'a' < 'b'"), "true");
  EXPECT_EQ(shown("1 == 'a'"), "false");
  EXPECT_EQ(shown("[1, 2] == [1.0, 2u]"), "true");
  EXPECT_EQ(shown("{'a': 1} == {'a': 1.0}"), "true");
  EXPECT_EQ(shown("1 < 'a'"), "error(no such overload: ordering of int and string)");
  EXPECT_EQ(shown("2 in [1, 2]"), "true");
  EXPECT_EQ(shown("'b' in {'a': 1}"), "false");
}

TEST(Cel, LogicalOperatorsAbsorbErrorsWhenTheOtherSideDecides) {
  EXPECT_EQ(shown("true || 1 / 0 == 1"), "true");
  EXPECT_EQ(shown("1 / 0 == 1 || true"), "true");
  EXPECT_EQ(shown("false && missing"), "false");
  EXPECT_EQ(shown("missing && false"), "false");
  EXPECT_EQ(shown("missing || false"), "error(undeclared reference to 'missing')");
  EXPECT_EQ(shown("!true"), "false");
  EXPECT_EQ(shown("true ? 1 : missing"), "1");
  EXPECT_EQ(shown("1 ? 1 : 2"), "error(the condition of ?: must be a bool)");
}

TEST(Cel, DeviceSelectors) {
  EXPECT_EQ(shown("device.driver == 'gpu.example.com'"), "true");
  EXPECT_EQ(shown("device.attributes['gpu.example.com'].memory >= 40"), "true");
  EXPECT_EQ(shown("device.attributes['gpu.example.com'].index == 3"), "true");
  EXPECT_EQ(shown("device.attributes['gpu.example.com'].model.lowerAscii().startsWith('a1')"),
            "true");
  EXPECT_EQ(shown("has(device.attributes['gpu.example.com'].mig)"), "true");
  EXPECT_EQ(shown("has(device.attributes['gpu.example.com'].nvlink)"), "false");
  // A missing attribute is an error, which a selector reports.
  EXPECT_EQ(shown("device.attributes['gpu.example.com'].nvlink"), "error(no such key: nvlink)");
  EXPECT_EQ(shown("device.attributes['nic.example.com']"),
            "error(no such key: \"nic.example.com\")");
  EXPECT_EQ(shown("device.driver.size()"), "15");
}

TEST(Cel, Macros) {
  EXPECT_EQ(shown("[1, 2, 3].all(x, x > 0)"), "true");
  EXPECT_EQ(shown("[1, 2, 3].exists(x, x > 2)"), "true");
  EXPECT_EQ(shown("[1, 2, 3].exists_one(x, x > 1)"), "false");
  EXPECT_EQ(shown("[1, 2, 3].map(x, x * 2)"), "[2, 4, 6]");
  EXPECT_EQ(shown("[1, 2, 3].map(x, x > 1, x * 10)"), "[20, 30]");
  EXPECT_EQ(shown("[1, 2, 3].filter(x, x % 2 == 1)"), "[1, 3]");
  EXPECT_EQ(shown("{'a': 1, 'b': 2}.all(k, k in ['a', 'b'])"), "true");
  // exists: a true anywhere wins over an error elsewhere; all: a false.
  EXPECT_EQ(shown("[0, 1].exists(x, 1 / x == 1)"), "true");
  EXPECT_EQ(shown("[0, 1].all(x, 1 / x == 5)"), "false");
  EXPECT_EQ(shown("[0].all(x, 1 / x == 1)"), "error(division by zero)");
}

TEST(Cel, Functions) {
  EXPECT_EQ(shown("'héllo'.size()"), "5");
  EXPECT_EQ(shown("size([1, 2])"), "2");
  EXPECT_EQ(shown("'gpu-a100'.contains('a1')"), "true");
  EXPECT_EQ(shown("'gpu-a100'.endsWith('100')"), "true");
  EXPECT_EQ(shown("'A100'.matches('^A[0-9]+$')"), "true");
  EXPECT_EQ(shown("matches('x', '[')").substr(0, 22), "error(matches(): the p");
  EXPECT_EQ(shown("int('42') + int(2.9)"), "44");
  EXPECT_EQ(shown("uint(-1)"), "error(uint() range error)");
  EXPECT_EQ(shown("string(7u) + string(true)"), "\"7true\"");
  EXPECT_EQ(shown("double('1.5')"), "1.5");
  EXPECT_EQ(shown("'x'.nosuch()"), "error(no such overload: nosuch(string))");
}

TEST(Cel, KubernetesQuantities) {
  // Exact, as resource.Quantity: 1Gi is 1024Mi, 0.1 + 0.2 is 0.3.
  EXPECT_EQ(shown("quantity('1Gi') == quantity('1024Mi')"), "true");
  EXPECT_EQ(shown("quantity('1Gi').compareTo(quantity('1G'))"), "1");
  EXPECT_EQ(shown("quantity('0.1').add(quantity('0.2')) == quantity('300m')"), "true");
  EXPECT_EQ(shown("quantity('1.5Gi').asInteger()"), "1610612736");
  EXPECT_EQ(shown("quantity('1E').isGreaterThan(quantity('1e18'))"), "false");
  EXPECT_EQ(shown("quantity('1e3').asInteger()"), "1000");
  EXPECT_EQ(shown("quantity('500m').isInteger()"), "false");
  EXPECT_EQ(shown("quantity('500m').asApproximateFloat()"), "0.5");
  EXPECT_EQ(shown("quantity('-2k').sign()"), "-1");
  EXPECT_EQ(shown("quantity('2').sub(3)"), "quantity(\"-1\")");
  EXPECT_EQ(shown("quantity('40Gi').isLessThan(quantity('80Gi'))"), "true");
  EXPECT_EQ(shown("isQuantity('1Gb')"), "false");
  EXPECT_EQ(shown("quantity('1Gb')"), "error(quantity(): \"1Gb\" is not a quantity)");
  EXPECT_EQ(shown("quantity('500m').asInteger()"),
            "error(asInteger(): 0.5 is not an integer in 64 bits)");
}

TEST(Cel, KubernetesSemanticVersions) {
  EXPECT_EQ(shown("semver('1.10.0').isGreaterThan(semver('1.9.9'))"), "true");
  EXPECT_EQ(shown("semver('1.0.0-rc.1').isLessThan(semver('1.0.0'))"), "true");
  EXPECT_EQ(shown("semver('1.0.0-alpha').compareTo(semver('1.0.0-alpha.1'))"), "-1");
  EXPECT_EQ(shown("semver('1.0.0-2').compareTo(semver('1.0.0-10'))"), "-1");
  EXPECT_EQ(shown("semver('1.0.0-beta').compareTo(semver('1.0.0-2'))"), "1");
  EXPECT_EQ(shown("semver('1.2.3+build.5') == semver('1.2.3')"), "true");
  EXPECT_EQ(shown("semver('2.7.1').major() * 100 + semver('2.7.1').minor()"), "207");
  EXPECT_EQ(shown("semver('v1.2', true).patch()"), "0");
  EXPECT_EQ(shown("isSemver('v1.2')"), "false");
  EXPECT_EQ(shown("isSemver('01.2.3')"), "false");
  EXPECT_EQ(shown("semver('1.2')"), "error(semver(): \"1.2\" is not a version)");
}

TEST(Cel, ParseErrorsSayWhere) {
  EXPECT_EQ(parse_error("1 +"), "at 3: expected an expression, found end of expression");
  EXPECT_EQ(parse_error("(1"), "at 2: expected ')', found end of expression");
  EXPECT_EQ(parse_error("'open"), "at 0: the string is not closed");
  EXPECT_EQ(parse_error("1 2"), "at 2: unexpected '2'");
  EXPECT_EQ(parse_error("has(x)"),
            "at 0: has() takes a field selection, such as has(device.attributes)");
  EXPECT_EQ(parse_error("var + 1"), "at 0: 'var' is a reserved word");
  EXPECT_EQ(parse_error("9223372036854775808"), "at 0: the number does not fit in an int");
  EXPECT_EQ(parse_error("'\\q'"), "at 1: a bad escape sequence");
}

TEST(Cel, HostileExpressionsMeetTheirBounds) {
  EXPECT_EQ(parse_error(std::string(200, '(') + "1" + std::string(200, ')')),
            "at 100: nested more than 100 deep");
  EXPECT_EQ(parse_error(std::string(200, '!') + "true"), "at 100: nested more than 100 deep");
  std::string chain = "1";
  for (int i = 0; i < 300; ++i) chain += " + 1";
  EXPECT_EQ(parse_error(chain), "at 998: the expression is more than 250 operations deep");
  EXPECT_EQ(shown(chain.substr(0, 4 * 249 + 1)), "250");
  EXPECT_EQ(parse_error(std::string(kMaxExpressionBytes + 1, ' ')),
            "the expression is 10241 bytes; at most 10240 are allowed");
  // Growth by repeated concatenation is charged for what it builds.
  const Value v = eval(
      "[1,2,3,4,5,6,7,8,9,10].map(a, [1,2,3,4,5,6,7,8,9,10].map(b, "
      "[1,2,3,4,5,6,7,8,9,10].map(c, [1,2,3,4,5,6,7,8,9,10].map(d, "
      "[1,2,3,4,5,6,7,8,9,10].map(e, [1,2,3,4,5,6,7,8,9,10])))))");
  EXPECT_EQ(debug_string(v), "error(the expression's cost exceeds its limit of 1000000)");
}

}  // namespace
}  // namespace scoria::cel

namespace scoria::cel {
namespace {

TEST(Cel, UndeclaredReferencesAreCompileErrors) {
  static constexpr std::string_view kDevice[] = {"device"};
  const auto checked = [](std::string_view text) { return Program::compile(text, kDevice); };
  const auto refused = checked("device.driver == noSuchVar");
  ASSERT_TRUE(std::holds_alternative<ParseError>(refused));
  EXPECT_EQ(std::get<ParseError>(refused).message,
            "undeclared reference to 'noSuchVar' (in container '')");
  EXPECT_EQ(std::get<ParseError>(refused).at, 17u);
  // A macro's variable is declared inside the macro only.
  EXPECT_TRUE(std::holds_alternative<Program>(checked("[1, 2].all(x, x > 0)")));
  EXPECT_TRUE(std::holds_alternative<ParseError>(checked("[1].all(x, x > 0) && x")));
  // Unchecked, the same text compiles and fails when evaluated.
  EXPECT_TRUE(std::holds_alternative<Program>(Program::compile("noSuchVar")));
}

TEST(Cel, AMapWithADefaultGivesItForAbsentKeys) {
  Map outer{{Value("a.com"), Value(Map{{Value("x"), Value(1)}})}};
  outer.absent = std::make_shared<const Value>(Value(Map{}));
  const Variables vars{{"m", Value(std::move(outer))}};
  const auto eval = [&](std::string_view text) {
    return std::get<Program>(Program::compile(text)).evaluate(vars);
  };
  EXPECT_EQ(eval("m[\"a.com\"].x == 1").as<bool>(), true);
  EXPECT_EQ(eval("has(m[\"b.com\"].x)").as<bool>(), false);
  EXPECT_TRUE(eval("m[\"b.com\"].x").is_error());
  EXPECT_EQ(eval("size(m)").as<int64_t>(), 2 - 1);
}

}  // namespace
}  // namespace scoria::cel
