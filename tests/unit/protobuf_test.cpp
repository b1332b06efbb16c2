// Kubernetes' protobuf request bodies: the wire reader under every
// malformed input, the table-driven conversion to JSON under Go's
// encoding/json rules, the envelope, and bodies kubectl 1.32 sent (captured
// from `kubectl create namespace|priorityclass|quota|pdb`, `auth can-i` and
// `drain --disable-eviction`) read into the JSON the same objects sent as
// JSON would be.
#include <gtest/gtest.h>

#include <array>
#include <limits>
#include <string>

#include "api/protobuf_body.h"
#include "api/protobuf_kinds.h"
#include "api/protobuf_message.h"
#include "api/protobuf_wire.h"
#include "api/status.h"

namespace scoria::api {
namespace {

using nlohmann::json;
using protobuf::Emit;
using protobuf::Field;
using protobuf::Label;
using protobuf::Message;
using protobuf::Type;
using protobuf::WireError;
using protobuf::WireReader;
using protobuf::WireType;

// Hex, spaces between records allowed.
std::string bytes(std::string_view spaced) {
  std::string hex;
  for (char c : spaced)
    if (c != ' ') hex.push_back(c);
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2)
    out.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  return out;
}

// The message of `e`, or "" when `f` throws nothing.
template <class F>
std::string wire_error(F&& f) {
  try {
    f();
  } catch (const WireError& e) {
    return e.what();
  }
  return "";
}

std::string all_records(std::string_view data) {
  std::string out;
  for (WireReader r(data); !r.done();) {
    const auto f = r.next();
    out += std::to_string(f.number) + ":" + std::to_string(static_cast<int>(f.type)) + ";";
  }
  return out;
}

TEST(ProtobufWire, ReadsEachWireType) {
  // 1: varint 300; 2: "hi"; 3: fixed64 1; 4: fixed32 2; 5: group {1: 1}.
  const std::string data = bytes(
      "08ac02"
      "12026869"
      "190100000000000000"
      "2502000000"
      "2b08012c");
  WireReader r(data);
  auto f = r.next();
  EXPECT_EQ(f.number, 1u);
  EXPECT_EQ(f.type, WireType::kVarint);
  EXPECT_EQ(f.varint, 300u);
  f = r.next();
  EXPECT_EQ(f.type, WireType::kLength);
  EXPECT_EQ(f.bytes, "hi");
  f = r.next();
  EXPECT_EQ(f.type, WireType::kFixed64);
  EXPECT_EQ(f.varint, 1u);
  f = r.next();
  EXPECT_EQ(f.type, WireType::kFixed32);
  EXPECT_EQ(f.varint, 2u);
  f = r.next();
  EXPECT_EQ(f.number, 5u);
  EXPECT_EQ(f.type, WireType::kStartGroup);
  EXPECT_TRUE(r.done());
}

TEST(ProtobufWire, VarintsUpToSixtyFourBits) {
  size_t pos = 0;
  const std::string max = bytes("ffffffffffffffffff01");
  EXPECT_EQ(WireReader::read_varint(max, pos), ~uint64_t{0});
  EXPECT_EQ(pos, 10u);
  pos = 0;
  EXPECT_EQ(WireReader::read_varint(bytes("00"), pos), 0u);
}

TEST(ProtobufWire, EveryMalformedInputIsAnErrorNamingIt) {
  const std::array<std::pair<std::string_view, std::string_view>, 12> cases{{
      {"08", "unexpected EOF: the varint at byte 1"},    // a varint cut short
      {"08ff", "unexpected EOF: the varint at byte 1"},  // continuation past the end
      {"08ffffffffffffffffff02", "integer overflow"},    // a tenth byte above 1
      {"08ffffffffffffffffffff01", "integer overflow"},  // eleven bytes
      {"1205616263", "unexpected EOF: field 2 at byte 2 needs 5 bytes, 3 are left"},
      {"12ffffffffffffffff7f", "needs 9223372036854775807 bytes"},  // a huge length
      {"0001", "illegal tag 0 (wire type 0)"},
      {"0e", "illegal wire type 6 for field 1"},
      {"0f", "illegal wire type 7 for field 1"},
      {"0c", "end group for field 1 at byte 0 without its start"},
      {"0b0801", "group 1 is not closed"},
      {"0b14", "end group 2 at byte 1 closes group 1"},
  }};
  for (const auto& [hex, message] : cases) {
    const std::string data = bytes(hex);
    const std::string error = wire_error([&] { (void)all_records(data); });
    EXPECT_NE(error.find(message), std::string::npos) << hex << ": " << error;
  }
  std::string deep;
  for (int i = 0; i < WireReader::kMaxGroupDepth + 1; ++i) deep += bytes("0b");
  EXPECT_NE(wire_error([&] { (void)all_records(deep); }).find("groups nested deeper than 32"),
            std::string::npos);
  EXPECT_NE(wire_error([&] { (void)all_records(bytes("0d0102")); }).find("fixed32"),
            std::string::npos);
  EXPECT_NE(wire_error([&] { (void)all_records(bytes("09010203")); }).find("fixed64"),
            std::string::npos);
  EXPECT_NE(wire_error([&] { (void)all_records(bytes("f8ffffff7f00")); }).find("out of range"),
            std::string::npos);
}

// A table of every type, for the converter.
constexpr std::array kInnerFields{
    Field{1, "name", Type::kString},
    Field{2, "count", Type::kInt32, Label::kSingle, Emit::kAlways},
};
constexpr Message kInner{"Inner", kInnerFields};

constexpr std::array kAllFields{
    Field{1, "text", Type::kString},
    Field{2, "data", Type::kBytes},
    Field{3, "flag", Type::kBool},
    Field{4, "small", Type::kInt32},
    Field{5, "big", Type::kInt64},
    Field{6, "inner", Type::kMessage, Label::kSingle, Emit::kAlways, &kInner},
    Field{7, "list", Type::kString, Label::kRepeated},
    Field{8, "labels", Type::kString, Label::kMap},
    Field{9, "hard", Type::kQuantity, Label::kMap},
    Field{10, "ios", Type::kIntOrString, Label::kSingle, Emit::kPresent},
    Field{11, "when", Type::kTime, Label::kSingle, Emit::kAlways},
    Field{12, "always", Type::kInt32, Label::kSingle, Emit::kAlways},
    Field{13, "pointer", Type::kInt64, Label::kSingle, Emit::kPresent},
    Field{14, "items", Type::kMessage, Label::kRepeated, Emit::kOmitEmpty, &kInner},
    Field{15, "numbers", Type::kInt64, Label::kRepeated},
    Field{16, "byName", Type::kMessage, Label::kMap, Emit::kOmitEmpty, &kInner},
    Field{17, "absentPointer", Type::kBool, Label::kSingle, Emit::kPresent},
};
constexpr Message kAll{"All", kAllFields};

TEST(ProtobufMessage, EachTypeReadsAsGoWritesItInJson) {
  const std::string data = bytes(
      "0a0378797a"                      // text "xyz"
      "1203010203"                      // data 01 02 03 -> AQID
      "1801"                            // flag true
      "20feffffffffffffffff01"          // small -2 (ten bytes)
      "2880808080808080808001"          // big -2^63
      "3205 0a01611002"                 // inner {name a, count 2}
      "3a0161 3a0162"                   // list [a, b]
      "4206 0a016b120176"               // labels {k: v}
      "4a0a 0a03637075 1203 0a0131"     // hard {cpu: "1"}
      "5209 0801 1000 1a03353025"       // ios "50%"
      "5a06 08808bd2bb06"               // when 2025-01-01T00:00:00Z
      "6000"                            // always 0
      "6800"                            // pointer 0, present
      "7203 0a0178 7203 0a0179"         // items [{name x}, {name y}]
      "7a03 010203"                     // numbers, packed
      "8201 0a 0a0163 1205 0a01641001"  // byName {c: {name d, count 1}}
  );
  const json got = protobuf::to_json(kAll, data);
  EXPECT_EQ(got["text"], "xyz");
  EXPECT_EQ(got["data"], "AQID");
  EXPECT_EQ(got["flag"], true);
  EXPECT_EQ(got["small"], -2);
  EXPECT_EQ(got["big"], std::numeric_limits<int64_t>::min());
  EXPECT_EQ(got["inner"], json({{"name", "a"}, {"count", 2}}));
  EXPECT_EQ(got["list"], json({"a", "b"}));
  EXPECT_EQ(got["labels"], json({{"k", "v"}}));
  EXPECT_EQ(got["hard"], json({{"cpu", "1"}}));
  EXPECT_EQ(got["ios"], "50%");
  EXPECT_EQ(got["when"], "2025-01-01T00:00:00Z");
  EXPECT_EQ(got["always"], 0);
  EXPECT_EQ(got["pointer"], 0);
  EXPECT_EQ(got["items"], json::parse(R"([{"name":"x","count":0},{"name":"y","count":0}])"));
  EXPECT_EQ(got["numbers"], json({1, 2, 3}));
  EXPECT_EQ(got["byName"], json::parse(R"({"c":{"name":"d","count":1}})"));
  EXPECT_FALSE(got.contains("absentPointer"));
}

TEST(ProtobufMessage, ZeroValuesFollowOmitEmpty) {
  // Everything at its zero value, as Kubernetes' encoder writes it.
  const json got = protobuf::to_json(kAll, bytes("0a00120018002000280032005a00"));
  // omitempty scalars go, struct values stay as their zero object, a
  // non-omitempty scalar is written even when absent, a zero time is null.
  EXPECT_EQ(got, json::parse(R"({"inner":{"count":0},"always":0})"));
  EXPECT_EQ(protobuf::to_json(kAll, ""), got);
}

TEST(ProtobufMessage, UnknownFieldsAreSkippedOfEveryWireType) {
  const json got = protobuf::to_json(kAll, bytes("a80601"
                                                 "b2060178"
                                                 "b9060100000000000000"
                                                 "bd0601000000"
                                                 "bb06080112017abc06"
                                                 "0a0161"));
  EXPECT_EQ(got["text"], "a");
  EXPECT_EQ(got.size(), 3u);  // text, inner, always
}

TEST(ProtobufMessage, ARepeatedMessageIsMergedAndTheLastScalarWins) {
  const json merged = protobuf::to_json(kAll, bytes("3203 0a0161  3202 1005  0a0162  0a0163"));
  EXPECT_EQ(merged["inner"], json({{"name", "a"}, {"count", 5}}));
  EXPECT_EQ(merged["text"], "c");
}

TEST(ProtobufMessage, MapEntriesWithoutKeyOrValueAreZero) {
  const json got = protobuf::to_json(kAll, bytes("4203120176"
                                                 "42030a016b"
                                                 "4a00"));
  EXPECT_EQ(got["labels"], json({{"", "v"}, {"k", ""}}));
  EXPECT_EQ(got["hard"], json({{"", "0"}}));
}

TEST(ProtobufMessage, MalformedFieldsAreErrorsNamingTheirPath) {
  const auto error = [](std::string_view hex) {
    return wire_error([&] { (void)protobuf::to_json(kAll, bytes(hex)); });
  };
  EXPECT_NE(error("0801").find("text (All field 1): wrong wire type varint for field 1, expected "
                               "length-delimited"),
            std::string::npos)
      << error("0801");
  EXPECT_NE(error("1a00").find("flag (All field 3): wrong wire type length-delimited"),
            std::string::npos);
  EXPECT_NE(error("32020801").find("inner.name (Inner field 1): wrong wire type"),
            std::string::npos)
      << error("32020801");
  EXPECT_NE(error("3205 0a").find("unexpected EOF: field 6 at byte 2 needs 5 bytes, 1 are left"),
            std::string::npos);
  EXPECT_NE(error("52020802").find("int-or-string type 2 is neither 0 (int) nor 1 (string)"),
            std::string::npos);
  EXPECT_NE(error("5a0a 08ffffffffffffffff7f")
                .find("when (All field 11): time "
                      "9223372036854775807s is outside the years"),
            std::string::npos)
      << error("5a0a08ffffffffffffffff7f");
  EXPECT_NE(error("7a01ff").find("numbers (All field 15): unexpected EOF"), std::string::npos);
}

// A message that holds itself: nesting is bounded however deep a body goes.
extern const Message kSelf;
const std::array kSelfFields{
    Field{1, "self", Type::kMessage, Label::kSingle, Emit::kOmitEmpty, &kSelf}};
const Message kSelf{"Self", kSelfFields};

TEST(ProtobufMessage, NestingIsBounded) {
  std::string body;
  for (int i = 0; i < 40; ++i) {
    std::string outer = "\x0a";
    outer.push_back(static_cast<char>(body.size()));
    body = outer + body;
  }
  EXPECT_NE(wire_error([&] {
              (void)protobuf::to_json(kSelf, body);
            }).find("messages nested deeper than 32"),
            std::string::npos);
}

TEST(ProtobufMessage, InvalidUtf8IsReplacedAsGoReplacesIt) {
  EXPECT_EQ(protobuf::valid_utf8("a\xff"
                                 "b"),
            "a\xef\xbf\xbd"
            "b");
  EXPECT_EQ(protobuf::valid_utf8("\xc3\xa9"), "\xc3\xa9");
  EXPECT_EQ(protobuf::valid_utf8("\xc3"), "\xef\xbf\xbd");
  EXPECT_EQ(protobuf::valid_utf8("\xed\xa0\x80"), "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
  EXPECT_EQ(protobuf::valid_utf8("\xe0\x80\xaf"), "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
  const json got = protobuf::to_json(kAll, bytes("0a0261ff"));
  EXPECT_EQ(got["text"], "a\xef\xbf\xbd");
}

// Bodies kubectl 1.32 sent.
constexpr std::string_view kCreateNamespace =
    "6b3873000a0f0a02763112094e616d65737061636512190a110a017812001a0022002a0032003800420012001a02"
    "0a001a002200";
constexpr std::string_view kCreatePriorityClass =
    "6b3873000a250a147363686564756c696e672e6b38732e696f2f7631120d5072696f72697479436c617373122f0a"
    "110a017012001a0022002a00320038004200100a180022002a14507265656d70744c6f7765725072696f72697479"
    "1a002200";
constexpr std::string_view kCreatePriorityClassFull =
    "6b3873000a250a147363686564756c696e672e6b38732e696f2f7631120d5072696f72697479436c61737312260a"
    "120a02703212001a0022002a0032003800420010e80718012204646573632a054e657665721a002200";
constexpr std::string_view kCreateQuota =
    "6b3873000a130a027631120d5265736f7572636551756f746112300a110a017112001a0022002a00320038004200"
    "12190a0a0a0363707512030a01310a0b0a04706f647312030a01321a001a002200";
constexpr std::string_view kCreateQuotaScopes =
    "6b3873000a130a027631120d5265736f7572636551756f7461125b0a120a02713212001a0022002a003200380042"
    "0012430a0b0a04706f647312030a01320a180a0f72657175657374732e6d656d6f727912050a03314769120a4265"
    "73744566666f7274120e4e6f745465726d696e6174696e671a001a002200";
constexpr std::string_view kCreatePdb =
    "6b3873000a200a09706f6c6963792f76311213506f6444697372757074696f6e42756467657412350a110a016212"
    "001a0022002a0032003800420012140a06080010011a00120a0a080a036170701201611a0a080018002000280030"
    "001a002200";
constexpr std::string_view kCreatePdbMaxUnavailable =
    "6b3873000a200a09706f6c6963792f76311213506f6444697372757074696f6e42756467657412460a120a026232"
    "12001a0022002a00320038004200122412170a080a036170701201610a0b0a047469657212037765621a09080110"
    "001a033530251a0a080018002000280030001a002200";
constexpr std::string_view kCanICreatePods =
    "6b3873000a320a17617574686f72697a6174696f6e2e6b38732e696f2f7631121753656c665375626a6563744163"
    "6365737352657669657712"
    "3f0a100a0012001a0022002a0032003800420012210a1f0a0764656661756c7412066372656174651a0022002a04"
    "706f647332003a001a08080012001a0020001a002200";
constexpr std::string_view kCanIGetLogs =
    "6b3873000a320a17617574686f72697a6174696f6e2e6b38732e696f2f7631121753656c665375626a6563744163"
    "63657373526576696577122c0a100a0012001a0022002a00320038004200120e120c0a052f6c6f67731203676574"
    "1a08080012001a0020001a002200";
constexpr std::string_view kDeleteGracePeriod5 =
    "6b3873000a130a027631120d44656c6574654f7074696f6e73120208051a002200";
constexpr std::string_view kDeleteDefault =
    "6b3873000a130a027631120d44656c6574654f7074696f6e7312001a002200";
constexpr std::string_view kCreateConfigMap =
    "6b3873000a0f0a0276311209436f6e6669674d6170121c0a120a02636d12001a0022002a00320038004200120"
    "60a01611201621a002200";

json read(std::string_view hex, std::string_view api_version, std::string_view kind) {
  return object_from_protobuf(bytes(hex), api_version, kind);
}

TEST(ProtobufBody, KubectlBodiesReadAsTheSameObjectsInJson) {
  EXPECT_EQ(read(kCreateNamespace, "v1", "Namespace"), json::parse(R"({
    "apiVersion":"v1","kind":"Namespace","metadata":{"name":"x"},"spec":{},"status":{}})"));
  EXPECT_EQ(read(kCreatePriorityClass, "scheduling.k8s.io/v1", "PriorityClass"), json::parse(R"({
    "apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass","metadata":{"name":"p"},
    "value":10,"preemptionPolicy":"PreemptLowerPriority"})"));
  EXPECT_EQ(read(kCreatePriorityClassFull, "scheduling.k8s.io/v1", "PriorityClass"),
            json::parse(R"({
    "apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass","metadata":{"name":"p2"},
    "value":1000,"globalDefault":true,"description":"desc","preemptionPolicy":"Never"})"));
  EXPECT_EQ(read(kCreateQuota, "v1", "ResourceQuota"), json::parse(R"({
    "apiVersion":"v1","kind":"ResourceQuota","metadata":{"name":"q"},
    "spec":{"hard":{"cpu":"1","pods":"2"}},"status":{}})"));
  EXPECT_EQ(read(kCreateQuotaScopes, "v1", "ResourceQuota"), json::parse(R"({
    "apiVersion":"v1","kind":"ResourceQuota","metadata":{"name":"q2"},
    "spec":{"hard":{"pods":"2","requests.memory":"1Gi"},"scopes":["BestEffort","NotTerminating"]},
    "status":{}})"));
  const json pdb_status = json::parse(
      R"({"disruptionsAllowed":0,"currentHealthy":0,"desiredHealthy":0,"expectedPods":0})");
  json pdb = json::parse(R"({
    "apiVersion":"policy/v1","kind":"PodDisruptionBudget","metadata":{"name":"b"},
    "spec":{"minAvailable":1,"selector":{"matchLabels":{"app":"a"}}}})");
  pdb["status"] = pdb_status;
  EXPECT_EQ(read(kCreatePdb, "policy/v1", "PodDisruptionBudget"), pdb);
  pdb = json::parse(R"({
    "apiVersion":"policy/v1","kind":"PodDisruptionBudget","metadata":{"name":"b2"},
    "spec":{"maxUnavailable":"50%","selector":{"matchLabels":{"app":"a","tier":"web"}}}})");
  pdb["status"] = pdb_status;
  EXPECT_EQ(read(kCreatePdbMaxUnavailable, "policy/v1", "PodDisruptionBudget"), pdb);
  EXPECT_EQ(read(kCanICreatePods, "authorization.k8s.io/v1", "SelfSubjectAccessReview"),
            json::parse(R"({
    "apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview","metadata":{},
    "spec":{"resourceAttributes":{"namespace":"default","verb":"create","resource":"pods"}},
    "status":{"allowed":false}})"));
  EXPECT_EQ(read(kCanIGetLogs, "authorization.k8s.io/v1", "SelfSubjectAccessReview")["spec"],
            json::parse(R"({"nonResourceAttributes":{"path":"/logs","verb":"get"}})"));
  EXPECT_EQ(read(kDeleteGracePeriod5, "v1", "DeleteOptions"),
            json::parse(R"({"apiVersion":"v1","kind":"DeleteOptions","gracePeriodSeconds":5})"));
  EXPECT_EQ(read(kDeleteDefault, "v1", "DeleteOptions"),
            json::parse(R"({"apiVersion":"v1","kind":"DeleteOptions"})"));
}

unsigned code_of(std::string_view body, std::string_view kind, std::string* message = nullptr) {
  try {
    (void)object_from_protobuf(body, "v1", kind);
  } catch (const ApiError& e) {
    if (message) *message = e.what();
    EXPECT_EQ(e.status()["kind"], "Status");
    return e.code();
  }
  return 0;
}

TEST(ProtobufBody, AMalformedBodyIsABadRequestNamingWhatWasWrong) {
  std::string message;
  EXPECT_EQ(code_of("", "Namespace", &message), 400u);
  EXPECT_EQ(
      message,
      "the object provided is unrecognized (must be of type Namespace): empty data (<empty>)");
  EXPECT_EQ(code_of("{\"kind\":\"Namespace\"}", "Namespace", &message), 400u);
  EXPECT_NE(message.find("expected prefix [107 56 115 0]"), std::string::npos);
  EXPECT_EQ(code_of(std::string_view("k8s\0", 4), "Namespace", &message), 400u);
  EXPECT_NE(message.find("empty body"), std::string::npos);
  // The envelope cut short.
  const std::string ns = bytes(kCreateNamespace);
  EXPECT_EQ(code_of(ns.substr(0, 10), "Namespace", &message), 400u);
  EXPECT_NE(message.find("unrecognized (must be of type Namespace): unexpected EOF"),
            std::string::npos)
      << message;
  // The object inside broken: ObjectMeta.name as a varint.
  std::string broken = ns;
  broken[25] = '\x08';
  EXPECT_EQ(code_of(broken, "Namespace", &message), 400u);
  EXPECT_NE(message.find("Namespace in version \"v1\" cannot be handled as a Namespace: "
                         "metadata.name (ObjectMeta field 1): wrong wire type varint"),
            std::string::npos)
      << message;
  // Every prefix of a real body is an answer, never a crash.
  for (size_t n = 0; n < ns.size(); ++n) (void)code_of(ns.substr(0, n), "Namespace");
}

TEST(ProtobufBody, AKindNotReadIsRefusedSayingToSendJson) {
  std::string message;
  EXPECT_EQ(code_of(bytes(kCreateConfigMap), "ConfigMap", &message), 415u);
  EXPECT_NE(message.find("send v1 ConfigMap as application/json"), std::string::npos) << message;
  EXPECT_NE(message.find("Namespace, ResourceQuota, PriorityClass"), std::string::npos);
  // A version of a kind read in another: the API server's words.
  std::string other = bytes(kCreateNamespace);
  other[8] = 'x';  // apiVersion "x1"
  EXPECT_EQ(code_of(other, "Namespace", &message), 400u);
  EXPECT_EQ(message,
            "the API version in the data (x1) does not match the expected API version (v1)");
}

TEST(ProtobufBody, AnEnvelopeWithoutItsTypeIsTheEndpointsKind) {
  // Unknown{raw: DeleteOptions{gracePeriodSeconds: 0}}, no typeMeta.
  const json got = object_from_protobuf(bytes("6b387300"
                                              "12020800"),
                                        "v1", "DeleteOptions");
  EXPECT_EQ(got,
            json::parse(R"({"apiVersion":"v1","kind":"DeleteOptions","gracePeriodSeconds":0})"));
  EXPECT_TRUE(is_protobuf("application/vnd.kubernetes.protobuf"));
  EXPECT_TRUE(is_protobuf(" Application/Vnd.Kubernetes.Protobuf ; charset=x"));
  EXPECT_FALSE(is_protobuf("application/json"));
  EXPECT_FALSE(is_protobuf("application/vnd.kubernetes.protobuf+json"));
}

}  // namespace
}  // namespace scoria::api
