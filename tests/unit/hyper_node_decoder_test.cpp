// topology.volcano.sh/v1alpha1 HyperNode as the loader reads it, each
// malformed one refused naming the file, the document, the HyperNode and the
// field; a PodGroup's spec.networkTopology; and the members resolved by the
// session (HyperNodeTopology), a missing one reported once.
#include <gtest/gtest.h>

#include <string>

#include "log/report_once.h"
#include "model/error.h"
#include "objects_from_text.h"
#include "session/hyper_nodes.h"
#include "source/object_loader.h"

namespace scoria::source {
namespace {

using test_support::parse;
using test_support::parse_error;

std::string hyper(std::string_view spec) {
  return "apiVersion: topology.volcano.sh/v1alpha1\nkind: HyperNode\nmetadata: {name: rack-1}\n"
         "spec:\n" +
         std::string(spec);
}

TEST(HyperNodeDecoder, ReadsTierAndEveryKindOfMember) {
  const auto objects = parse(hyper(R"(  tier: 1
  tierName: rack
  members:
  - {type: Node, selector: {exactMatch: {name: n1}}}
  - {type: Node, selector: {regexMatch: {pattern: "^gpu-[0-9]+$"}}}
  - type: Node
    selector:
      labelMatch:
        matchLabels: {rack: r1}
        matchExpressions:
        - {key: zone, operator: In, values: [a]}
  - {type: HyperNode, selector: {exactMatch: {name: sub-1}}}
)"));
  ASSERT_EQ(objects.hyper_nodes.size(), 1u);
  const model::HyperNode& h = objects.hyper_nodes[0];
  EXPECT_EQ(h.name, "rack-1");
  EXPECT_EQ(h.tier, 1);
  EXPECT_EQ(h.tier_name, "rack");
  ASSERT_EQ(h.members.size(), 4u);
  using M = model::HyperNodeMember;
  EXPECT_EQ(h.members[0].match, M::Match::Exact);
  EXPECT_EQ(h.members[0].name, "n1");
  EXPECT_EQ(h.members[1].match, M::Match::Regex);
  EXPECT_EQ(h.members[1].pattern, "^gpu-[0-9]+$");
  EXPECT_EQ(h.members[2].match, M::Match::Label);
  EXPECT_EQ(h.members[2].labels.match_labels.at("rack"), "r1");
  ASSERT_EQ(h.members[2].labels.match_expressions.size(), 1u);
  EXPECT_EQ(h.members[3].type, M::Type::HyperNode);
  EXPECT_EQ(h.members[3].name, "sub-1");
  EXPECT_FALSE(h.json.empty());
}

TEST(HyperNodeDecoder, RefusesMalformedObjects) {
  const std::string where = "cluster.yaml: document 1 (HyperNode rack-1): field ";
  EXPECT_EQ(parse_error(hyper("  members: [{type: Node, selector: {exactMatch: {name: n1}}}]\n")),
            where + "spec.tier: is missing; give the HyperNode's tier (1 for the lowest)");
  EXPECT_EQ(parse_error(hyper("  tier: -1\n  members: [{type: Node, selector: {exactMatch: "
                              "{name: n1}}}]\n")),
            where + "spec.tier: -1 is negative; write 0 or more");
  EXPECT_EQ(parse_error(hyper("  tier: 1\n")),
            where + "spec.members: is empty; list at least one Node or HyperNode member");
  EXPECT_EQ(parse_error(hyper("  tier: 1\n  members: [{type: Rack, selector: {exactMatch: {name: "
                              "n1}}}]\n")),
            where + "spec.members[0].type: \"Rack\" is not a member type; write Node or HyperNode");
  EXPECT_NE(parse_error(hyper("  tier: 1\n  members: [{type: Node, selector: {}}]\n"))
                .find(where + "spec.members[0].selector: is empty; give one of exactMatch"),
            std::string::npos);
  EXPECT_NE(parse_error(hyper("  tier: 1\n  members: [{type: Node, selector: {exactMatch: {name: "
                              "n1}, regexMatch: {pattern: n}}}]\n"))
                .find(where + "spec.members[0].selector: gives more than one match"),
            std::string::npos);
  EXPECT_NE(parse_error(hyper("  tier: 1\n  members: [{type: Node, selector: {regexMatch: "
                              "{pattern: \"gpu-[\"}}}]\n"))
                .find(where + "spec.members[0].selector.regexMatch.pattern: \"gpu-[\" is not a "
                              "regular expression"),
            std::string::npos);
  EXPECT_NE(parse_error(hyper("  tier: 2\n  members: [{type: HyperNode, selector: {labelMatch: "
                              "{matchLabels: {a: b}}}}]\n"))
                .find(where + "spec.members[0].selector.labelMatch: selects nodes only"),
            std::string::npos);
  EXPECT_NE(parse_error(hyper("  tier: 1\n  members: [{type: Node, selector: {exactMatch: {name: "
                              "Not_A_Name}}}]\n"))
                .find(where + "spec.members[0].selector.exactMatch.name: "),
            std::string::npos);
}

std::string group(std::string_view topology) {
  return "apiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\n"
         "metadata: {namespace: ml, name: train}\nspec:\n  minMember: 1\n  networkTopology: " +
         std::string(topology) + "\n";
}

TEST(HyperNodeDecoder, ReadsAndRefusesPodGroupNetworkTopology) {
  auto objects = parse(group("{mode: soft}"));
  ASSERT_TRUE(objects.pod_groups[0].network_topology.has_value());
  EXPECT_EQ(objects.pod_groups[0].network_topology->mode, model::NetworkTopology::Mode::Soft);
  objects = parse(group("{highestTierAllowed: 2}"));
  EXPECT_EQ(objects.pod_groups[0].network_topology->mode, model::NetworkTopology::Mode::Hard);
  EXPECT_EQ(objects.pod_groups[0].network_topology->highest_tier_allowed, 2);
  EXPECT_FALSE(parse(group("null")).pod_groups[0].network_topology.has_value());

  const std::string where =
      "cluster.yaml: document 1 (PodGroup ml/train): field spec.networkTopology";
  EXPECT_EQ(parse_error(group("{mode: strict}")),
            where + ".mode: \"strict\" is not a network topology mode; write hard or soft");
  EXPECT_EQ(parse_error(group("{highestTierAllowed: -1}")),
            where + ".highestTierAllowed: -1 is negative; write a tier, 0 or more");
  EXPECT_NE(parse_error(group("{highestTierAllowed: 1, highestTierName: rack}"))
                .find(where + ".highestTierName: cannot be set with highestTierAllowed"),
            std::string::npos);
  EXPECT_NE(parse_error(group("hard")).find(where), std::string::npos);
}

// --- resolution -------------------------------------------------------------------

struct Cluster {
  std::vector<model::Node> nodes;
  std::vector<model::HyperNode> hyper;

  session::HyperNodeTopology resolve() const {
    std::vector<const model::Node*> n;
    for (const auto& x : nodes) n.push_back(&x);
    std::vector<const model::HyperNode*> h;
    for (const auto& x : hyper) h.push_back(&x);
    return session::HyperNodeTopology(h, n);
  }
};

Cluster cluster(std::string_view text) {
  model::ClusterObjects o = parse(text);
  return Cluster{std::move(o.nodes), std::move(o.hyper_nodes)};
}

constexpr std::string_view kTree = R"(
apiVersion: v1
kind: Node
metadata: {name: gpu-0, labels: {rack: r2}}
---
apiVersion: v1
kind: Node
metadata: {name: gpu-1}
---
apiVersion: v1
kind: Node
metadata: {name: cpu-0, labels: {rack: r2}}
---
apiVersion: topology.volcano.sh/v1alpha1
kind: HyperNode
metadata: {name: rack-a}
spec:
  tier: 1
  members: [{type: Node, selector: {regexMatch: {pattern: "gpu-"}}}]
---
apiVersion: topology.volcano.sh/v1alpha1
kind: HyperNode
metadata: {name: rack-b}
spec:
  tier: 1
  members:
  - {type: Node, selector: {labelMatch: {matchLabels: {rack: r2}}}}
  - {type: Node, selector: {exactMatch: {name: gone-9}}}
---
apiVersion: topology.volcano.sh/v1alpha1
kind: HyperNode
metadata: {name: spine}
spec:
  tier: 2
  members:
  - {type: HyperNode, selector: {exactMatch: {name: rack-a}}}
  - {type: HyperNode, selector: {exactMatch: {name: rack-b}}}
  - {type: HyperNode, selector: {exactMatch: {name: rack-z}}}
)";

TEST(HyperNodeTopology, ResolvesMembersAndTheTierTree) {
  const Cluster c = cluster(kTree);
  const session::HyperNodeTopology t = c.resolve();
  ASSERT_EQ(t.size(), 4u);  // three, then the cluster top
  const uint32_t a = t.find("rack-a"), b = t.find("rack-b"), s = t.find("spine");
  EXPECT_EQ(t.all()[a].nodes, (std::vector<uint32_t>{0, 1}));  // gpu-0, gpu-1 by regex
  EXPECT_EQ(t.all()[b].nodes, (std::vector<uint32_t>{0, 2}));  // rack=r2 by label
  EXPECT_EQ(t.all()[s].nodes, (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_EQ(t.all()[s].children, (std::vector<uint32_t>{a, b}));
  EXPECT_EQ(t.all()[a].parent, s);
  EXPECT_EQ(t.all()[s].parent, t.top());
  EXPECT_EQ(t.all()[t.top()].name, "<cluster-top-hypernode>");
  EXPECT_EQ(t.all()[t.top()].tier, 3);
  EXPECT_EQ(t.all()[t.top()].nodes, (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_EQ(t.problems(),
            (std::vector<std::string>{
                "HyperNode rack-b: member Node gone-9 does not exist; it is left out",
                "HyperNode spine: member HyperNode rack-z does not exist; it is left out"}));
}

TEST(HyperNodeTopology, WithoutHyperNodesOnlyTheTopHoldsEveryNode) {
  const Cluster c = cluster("apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n");
  const session::HyperNodeTopology t = c.resolve();
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t.all()[0].tier, 1);
  EXPECT_EQ(t.all()[0].nodes, (std::vector<uint32_t>{0}));
  EXPECT_TRUE(t.problems().empty());
}

TEST(HyperNodeTopology, AMissingMemberIsReportedOnceNotEverySession) {
  const Cluster c = cluster(kTree);
  log::ReportOnce once;
  EXPECT_EQ(once.fresh(c.resolve().problems()).size(), 2u);  // first session
  EXPECT_TRUE(once.fresh(c.resolve().problems()).empty());   // second: nothing new
  EXPECT_TRUE(once.fresh(c.resolve().problems()).empty());
  EXPECT_TRUE(once.fresh({}).empty());                       // resolved
  EXPECT_EQ(once.fresh(c.resolve().problems()).size(), 2u);  // missing again: said again
}

TEST(HyperNodeTopology, ASecondParentIsLeftOut) {
  const Cluster c = cluster(R"(
apiVersion: v1
kind: Node
metadata: {name: n1}
---
apiVersion: topology.volcano.sh/v1alpha1
kind: HyperNode
metadata: {name: rack}
spec: {tier: 1, members: [{type: Node, selector: {exactMatch: {name: n1}}}]}
---
apiVersion: topology.volcano.sh/v1alpha1
kind: HyperNode
metadata: {name: spine-a}
spec: {tier: 2, members: [{type: HyperNode, selector: {exactMatch: {name: rack}}}]}
---
apiVersion: topology.volcano.sh/v1alpha1
kind: HyperNode
metadata: {name: spine-b}
spec: {tier: 2, members: [{type: HyperNode, selector: {exactMatch: {name: rack}}}]}
)");
  const session::HyperNodeTopology t = c.resolve();
  EXPECT_EQ(t.all()[t.find("rack")].parent, t.find("spine-a"));
  EXPECT_TRUE(t.all()[t.find("spine-b")].children.empty());
  ASSERT_EQ(t.problems().size(), 1u);
  EXPECT_EQ(t.problems()[0],
            "HyperNode spine-b: member HyperNode rack is already a member of spine-a; a "
            "HyperNode has one parent, so it is left out");
}

}  // namespace
}  // namespace scoria::source
