// The storage kinds as the loader reads them (v1 PersistentVolume and
// PersistentVolumeClaim, storage.k8s.io/v1 StorageClass, CSINode, CSIDriver
// and CSIStorageCapacity) and the claims a pod's volumes name: every field
// the volume plugins weigh, the defaults where an object file leaves status
// out, and each malformed field refused as the API server refuses it,
// naming the file, the document, the object and the field.
#include <gtest/gtest.h>

#include <string>

#include "model/error.h"
#include "model/storage.h"
#include "objects_from_text.h"
#include "source/object_loader.h"

namespace scoria::source {
namespace {

using test_support::kGi;
using test_support::kMi;
using test_support::parse;
using test_support::parse_error;

std::string volume(std::string_view spec, std::string_view rest = "") {
  return "apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: pv-1}\nspec:\n" +
         std::string(spec) + std::string(rest);
}

std::string claim(std::string_view spec, std::string_view rest = "",
                  std::string_view meta = "{namespace: shop, name: data}") {
  return "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: " + std::string(meta) +
         "\nspec:\n" + std::string(spec) + std::string(rest);
}

std::string storage_class(std::string_view body, std::string_view meta = "{name: fast}") {
  return "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: " + std::string(meta) +
         "\n" + std::string(body);
}

std::string capacity(std::string_view body) {
  return "apiVersion: storage.k8s.io/v1\nkind: CSIStorageCapacity\n"
         "metadata: {namespace: kube-system, name: csisc-1}\n" +
         std::string(body);
}

std::string csi_node(std::string_view drivers) {
  return "apiVersion: storage.k8s.io/v1\nkind: CSINode\nmetadata: {name: n1}\nspec:\n  drivers:\n" +
         std::string(drivers);
}

std::string pod(std::string_view volumes) {
  return "apiVersion: v1\nkind: Pod\nmetadata: {namespace: shop, name: web-0}\nspec:\n"
         "  containers: [{name: c, image: busybox}]\n  volumes:\n" +
         std::string(volumes);
}

constexpr std::string_view kPlainSpec =
    "  capacity: {storage: 10Gi}\n  accessModes: [ReadWriteOnce]\n";
constexpr std::string_view kClaimSpec =
    "  accessModes: [ReadWriteOnce]\n  resources: {requests: {storage: 5Gi}}\n";

// ---------------------------------------------------------------------------
// Good objects
// ---------------------------------------------------------------------------

TEST(StorageDecoders, PersistentVolumeEveryField) {
  const auto objects = parse(R"(apiVersion: v1
kind: PersistentVolume
metadata:
  name: pv-1
  labels: {tier: ssd}
  annotations: {pv.kubernetes.io/provisioned-by: ebs.csi.aws.com}
  deletionTimestamp: "2026-01-01T00:00:00Z"
spec:
  capacity: {storage: 1.5Gi}
  accessModes: [ReadOnlyMany, ReadWriteOnce, ReadOnlyMany]
  storageClassName: fast
  volumeMode: Block
  persistentVolumeReclaimPolicy: Delete
  claimRef: {namespace: shop, name: data, uid: u-1}
  nodeAffinity:
    required:
      nodeSelectorTerms:
      - matchExpressions:
        - {key: topology.kubernetes.io/zone, operator: In, values: [a, b]}
      - matchFields:
        - {key: metadata.name, operator: In, values: [n1]}
  csi: {driver: ebs.csi.aws.com, volumeHandle: vol-123, fsType: ext4}
status: {phase: Released}
)");
  ASSERT_EQ(objects.volumes.size(), 1u);
  const model::PersistentVolume& v = objects.volumes[0];
  EXPECT_EQ(v.key(), "pv-1");
  EXPECT_EQ(v.labels.at("tier"), "ssd");
  EXPECT_EQ(v.annotations.at("pv.kubernetes.io/provisioned-by"), "ebs.csi.aws.com");
  EXPECT_TRUE(v.deleting);
  EXPECT_EQ(v.capacity, 1.5 * kGi);
  EXPECT_EQ(v.access_modes, model::kReadOnlyMany | model::kReadWriteOnce);
  EXPECT_EQ(v.storage_class, "fast");
  EXPECT_TRUE(v.block);
  EXPECT_TRUE(v.claimed());
  EXPECT_EQ(v.claim_namespace, "shop");
  EXPECT_EQ(v.claim_name, "data");
  EXPECT_EQ(v.claim_uid, "u-1");
  ASSERT_EQ(v.node_affinity.size(), 2u);
  EXPECT_EQ(v.node_affinity[0].requirements[0].key, "topology.kubernetes.io/zone");
  EXPECT_EQ(v.node_affinity[0].requirements[0].values, (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(v.node_affinity[1].requirements[0].is_field);
  EXPECT_EQ(v.csi_driver, "ebs.csi.aws.com");
  EXPECT_EQ(v.csi_handle, "vol-123");
  EXPECT_EQ(v.phase, model::VolumePhase::Released);
  // Object files keep no text of the storage kinds (nothing reads it).
  EXPECT_TRUE(v.json.empty());
}

TEST(StorageDecoders, PersistentVolumeWithoutStatusIsAvailableOrBoundToItsClaim) {
  const auto plain = parse(volume(kPlainSpec)).volumes.at(0);
  EXPECT_EQ(plain.phase, model::VolumePhase::Available);
  EXPECT_FALSE(plain.claimed());
  EXPECT_FALSE(plain.block);
  EXPECT_EQ(plain.storage_class, "");
  EXPECT_TRUE(plain.node_affinity.empty());
  EXPECT_EQ(plain.csi_driver, "");
  EXPECT_FALSE(plain.deleting);
  EXPECT_EQ(plain.capacity, 10 * kGi);
  const auto bound =
      parse(volume(kPlainSpec, "  claimRef: {namespace: shop, name: data}\n")).volumes.at(0);
  EXPECT_EQ(bound.phase, model::VolumePhase::Bound);
  for (const auto& [text, phase] : std::vector<std::pair<std::string, model::VolumePhase>>{
           {"Pending", model::VolumePhase::Pending},
           {"Available", model::VolumePhase::Available},
           {"Bound", model::VolumePhase::Bound},
           {"Failed", model::VolumePhase::Failed}}) {
    EXPECT_EQ(parse(volume(kPlainSpec, "status: {phase: " + text + "}\n")).volumes.at(0).phase,
              phase)
        << text;
  }
  // A size is rounded up to a whole byte, as Quantity.Value() rounds it.
  EXPECT_EQ(parse(volume("  capacity: {storage: 1500m}\n  accessModes: [ReadWriteMany]\n"))
                .volumes.at(0)
                .capacity,
            2);
}

TEST(StorageDecoders, PersistentVolumeClaimEveryField) {
  const auto objects = parse(R"(apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  namespace: shop
  name: web-0-scratch
  uid: c-1
  annotations: {volume.kubernetes.io/selected-node: n1}
  deletionTimestamp: "2026-01-01T00:00:00Z"
  ownerReferences:
  - {apiVersion: v1, kind: ConfigMap, name: other, uid: o-0}
  - {apiVersion: v1, kind: Pod, name: web-0, uid: p-1, controller: true}
spec:
  accessModes: [ReadWriteOncePod]
  storageClassName: fast
  volumeMode: Filesystem
  resources: {requests: {storage: 512Mi}}
  volumeName: pv-1
  selector:
    matchLabels: {tier: ssd}
    matchExpressions: [{key: zone, operator: In, values: [a]}]
status: {phase: Lost}
)");
  ASSERT_EQ(objects.claims.size(), 1u);
  const model::PersistentVolumeClaim& c = objects.claims[0];
  EXPECT_EQ(c.key(), "shop/web-0-scratch");
  EXPECT_EQ(c.uid, "c-1");
  EXPECT_EQ(c.selected_node(), "n1");
  EXPECT_TRUE(c.deleting);
  EXPECT_EQ(c.owner_kind, "Pod");
  EXPECT_EQ(c.owner_name, "web-0");
  EXPECT_EQ(c.owner_uid, "p-1");
  EXPECT_EQ(c.access_modes, model::kReadWriteOncePod);
  ASSERT_TRUE(c.storage_class.has_value());
  EXPECT_EQ(*c.storage_class, "fast");
  EXPECT_FALSE(c.block);
  EXPECT_EQ(c.request, 512 * kMi);
  EXPECT_EQ(c.volume_name, "pv-1");
  ASSERT_TRUE(c.selector.has_value());
  EXPECT_EQ(c.selector->match_labels.at("tier"), "ssd");
  EXPECT_EQ(c.selector->match_expressions.at(0).key, "zone");
  EXPECT_EQ(c.phase, model::ClaimPhase::Lost);
  EXPECT_TRUE(c.json.empty());
}

TEST(StorageDecoders, ClaimClassAbsentAndEmptyAreKeptApart) {
  const auto absent = parse(claim(kClaimSpec)).claims.at(0);
  EXPECT_FALSE(absent.storage_class.has_value());
  EXPECT_FALSE(absent.selector.has_value());
  EXPECT_EQ(absent.owner_kind, "");
  EXPECT_EQ(absent.key(), "shop/data");
  const auto empty = parse(claim(kClaimSpec, "  storageClassName: \"\"\n")).claims.at(0);
  ASSERT_TRUE(empty.storage_class.has_value());
  EXPECT_EQ(*empty.storage_class, "");
  EXPECT_EQ(parse(claim(kClaimSpec, "", "{name: data}")).claims.at(0).key(), "default/data");
}

TEST(StorageDecoders, ClaimWithoutStatusIsBoundOnlyOnceTheBindingCompleted) {
  EXPECT_EQ(parse(claim(kClaimSpec)).claims.at(0).phase, model::ClaimPhase::Pending);
  // Named a volume, but the controller has not said it bound them: pending.
  EXPECT_EQ(parse(claim(kClaimSpec, "  volumeName: pv-1\n")).claims.at(0).phase,
            model::ClaimPhase::Pending);
  EXPECT_EQ(parse(claim(kClaimSpec, "  volumeName: pv-1\n",
                        "{namespace: shop, name: data, annotations: "
                        "{pv.kubernetes.io/bind-completed: \"yes\"}}"))
                .claims.at(0)
                .phase,
            model::ClaimPhase::Bound);
  // The annotation alone binds nothing.
  EXPECT_EQ(parse(claim(kClaimSpec, "",
                        "{namespace: shop, name: data, annotations: "
                        "{pv.kubernetes.io/bind-completed: \"yes\"}}"))
                .claims.at(0)
                .phase,
            model::ClaimPhase::Pending);
  EXPECT_EQ(parse(claim(kClaimSpec, "status: {phase: Bound}\n")).claims.at(0).phase,
            model::ClaimPhase::Bound);
}

TEST(StorageDecoders, StorageClassEveryField) {
  const auto objects = parse(storage_class(R"(provisioner: ebs.csi.aws.com
volumeBindingMode: WaitForFirstConsumer
reclaimPolicy: Retain
parameters: {type: gp3}
allowedTopologies:
- matchLabelExpressions:
  - {key: topology.kubernetes.io/zone, values: [a, b]}
  - {key: disk, values: [ssd]}
- matchLabelExpressions:
  - {key: topology.kubernetes.io/zone, values: [c]}
)",
                                           "{name: fast, annotations: "
                                           "{storageclass.kubernetes.io/is-default-class: "
                                           "\"true\"}}"));
  ASSERT_EQ(objects.storage_classes.size(), 1u);
  const model::StorageClass& sc = objects.storage_classes[0];
  EXPECT_EQ(sc.key(), "fast");
  EXPECT_EQ(sc.provisioner, "ebs.csi.aws.com");
  EXPECT_TRUE(sc.provisions());
  EXPECT_EQ(sc.binding_mode, model::BindingMode::WaitForFirstConsumer);
  EXPECT_TRUE(sc.is_default);
  ASSERT_EQ(sc.allowed_topologies.size(), 2u);
  ASSERT_EQ(sc.allowed_topologies[0].requirements.size(), 2u);
  const model::SelectorRequirement& zone = sc.allowed_topologies[0].requirements[0];
  EXPECT_EQ(zone.key, "topology.kubernetes.io/zone");
  EXPECT_EQ(zone.op, model::SelectorOp::In);
  EXPECT_EQ(zone.values, (std::vector<std::string>{"a", "b"}));
  EXPECT_FALSE(zone.is_field);
  EXPECT_EQ(sc.allowed_topologies[1].requirements[0].values, std::vector<std::string>{"c"});
  EXPECT_TRUE(sc.json.empty());
}

TEST(StorageDecoders, StorageClassDefaults) {
  const auto plain =
      parse(storage_class("provisioner: kubernetes.io/no-provisioner\n")).storage_classes.at(0);
  EXPECT_EQ(plain.binding_mode, model::BindingMode::Immediate);
  EXPECT_FALSE(plain.is_default);
  EXPECT_FALSE(plain.provisions());
  EXPECT_TRUE(plain.allowed_topologies.empty());
  // The beta annotation marks the default too; only "true" does.
  EXPECT_TRUE(parse(storage_class("provisioner: p\n",
                                  "{name: fast, annotations: "
                                  "{storageclass.beta.kubernetes.io/is-default-class: \"true\"}}"))
                  .storage_classes.at(0)
                  .is_default);
  EXPECT_FALSE(parse(storage_class("provisioner: p\n",
                                   "{name: fast, annotations: "
                                   "{storageclass.kubernetes.io/is-default-class: \"yes\"}}"))
                   .storage_classes.at(0)
                   .is_default);
  EXPECT_EQ(parse(storage_class("provisioner: p\nvolumeBindingMode: Immediate\n"))
                .storage_classes.at(0)
                .binding_mode,
            model::BindingMode::Immediate);
}

TEST(StorageDecoders, CSINodeDrivers) {
  const auto objects = parse(csi_node(R"(  - name: ebs.csi.aws.com
    nodeID: i-123
    allocatable: {count: 25}
    topologyKeys: [topology.ebs.csi.aws.com/zone]
  - {name: nfs.csi.k8s.io, nodeID: n1}
)"));
  ASSERT_EQ(objects.csi_nodes.size(), 1u);
  const model::CSINode& n = objects.csi_nodes[0];
  EXPECT_EQ(n.key(), "n1");
  ASSERT_EQ(n.drivers.size(), 2u);
  EXPECT_EQ(n.drivers[0].name, "ebs.csi.aws.com");
  EXPECT_EQ(n.drivers[0].node_id, "i-123");
  EXPECT_EQ(n.drivers[0].allocatable, 25);
  EXPECT_EQ(n.drivers[0].topology_keys, std::vector<std::string>{"topology.ebs.csi.aws.com/zone"});
  EXPECT_FALSE(n.drivers[1].allocatable.has_value());  // no limit
  EXPECT_TRUE(n.drivers[1].topology_keys.empty());
  EXPECT_TRUE(parse("apiVersion: storage.k8s.io/v1\nkind: CSINode\nmetadata: {name: n2}\n")
                  .csi_nodes.at(0)
                  .drivers.empty());
}

TEST(StorageDecoders, CSIDriverAndItsDefaults) {
  const auto objects = parse(R"(apiVersion: storage.k8s.io/v1
kind: CSIDriver
metadata: {name: ebs.csi.aws.com}
spec: {attachRequired: false, storageCapacity: true, podInfoOnMount: true}
---
apiVersion: storage.k8s.io/v1
kind: CSIDriver
metadata: {name: nfs.csi.k8s.io}
)");
  ASSERT_EQ(objects.csi_drivers.size(), 2u);
  EXPECT_EQ(objects.csi_drivers[0].key(), "ebs.csi.aws.com");
  EXPECT_FALSE(objects.csi_drivers[0].attach_required);
  EXPECT_TRUE(objects.csi_drivers[0].storage_capacity);
  EXPECT_TRUE(objects.csi_drivers[1].attach_required);
  EXPECT_FALSE(objects.csi_drivers[1].storage_capacity);
}

TEST(StorageDecoders, CSIStorageCapacityEveryField) {
  const auto objects = parse(capacity(R"(storageClassName: fast
nodeTopology:
  matchLabels: {topology.kubernetes.io/zone: a}
capacity: 100Gi
maximumVolumeSize: 2Ti
)"));
  ASSERT_EQ(objects.storage_capacities.size(), 1u);
  const model::CSIStorageCapacity& c = objects.storage_capacities[0];
  EXPECT_EQ(c.key(), "kube-system/csisc-1");
  EXPECT_EQ(c.storage_class, "fast");
  ASSERT_TRUE(c.node_topology.has_value());
  EXPECT_EQ(c.node_topology->match_labels.at("topology.kubernetes.io/zone"), "a");
  EXPECT_EQ(c.capacity, 100 * kGi);
  EXPECT_EQ(c.maximum_volume_size, 2048 * kGi);
  const auto bare = parse(capacity("storageClassName: fast\n")).storage_capacities.at(0);
  EXPECT_FALSE(bare.node_topology.has_value());
  EXPECT_FALSE(bare.capacity.has_value());
  EXPECT_FALSE(bare.maximum_volume_size.has_value());
}

TEST(StorageDecoders, PodClaimsFromItsVolumes) {
  const auto objects = parse(pod(R"(  - {name: config, configMap: {name: web}}
  - {name: data, persistentVolumeClaim: {claimName: web-data, readOnly: true}}
  - name: scratch
    ephemeral:
      volumeClaimTemplate:
        spec:
          accessModes: [ReadWriteOnce]
          resources: {requests: {storage: 1Gi}}
  - {name: tmp, emptyDir: {}}
)"));
  ASSERT_EQ(objects.pods.size(), 1u);
  const auto& claims = objects.pods[0].claims;
  ASSERT_EQ(claims.size(), 2u);
  EXPECT_EQ(claims[0].name, "web-data");
  EXPECT_FALSE(claims[0].ephemeral);
  // Named as the ephemeral-volume controller names it: POD-VOLUME.
  EXPECT_EQ(claims[1].name, "web-0-scratch");
  EXPECT_TRUE(claims[1].ephemeral);
  EXPECT_TRUE(parse(pod("  - {name: tmp, emptyDir: {}}\n")).pods.at(0).claims.empty());
}

TEST(StorageDecoders, SameNameOfAClaimInTwoNamespacesButNotTwiceInOne) {
  const std::string other = "---\n" + claim(kClaimSpec, "", "{namespace: ml, name: data}");
  EXPECT_EQ(parse(claim(kClaimSpec) + other).claims.size(), 2u);
  EXPECT_EQ(parse_error(claim(kClaimSpec) + "---\n" + claim(kClaimSpec)),
            "cluster.yaml: document 2 (PersistentVolumeClaim shop/data): field metadata.name: "
            "\"data\" is already used by document 1; give each PersistentVolumeClaim in namespace "
            "\"shop\" its own name");
  EXPECT_EQ(parse_error(volume(kPlainSpec) + "---\n" + volume(kPlainSpec)),
            "cluster.yaml: document 2 (PersistentVolume pv-1): field metadata.name: \"pv-1\" is "
            "already used by document 1; give each PersistentVolume its own name");
}

// ---------------------------------------------------------------------------
// Refusals, each naming its field
// ---------------------------------------------------------------------------

TEST(StorageDecoderErrors, PersistentVolumesAsTheApiServerValidatesThem) {
  const std::string at = "cluster.yaml: document 1 (PersistentVolume pv-1): field ";
  const std::string modes = "  accessModes: [ReadWriteOnce]\n";
  EXPECT_EQ(parse_error(volume(modes)),
            at + "spec.capacity.storage: is missing; give the volume's size, e.g. 10Gi");
  EXPECT_EQ(parse_error(volume("  capacity: {storage: 1Gi, cpu: \"1\"}\n" + modes)),
            at + "spec.capacity.cpu: \"cpu\" is not a capacity of a volume; give storage only");
  EXPECT_EQ(parse_error(volume("  capacity: {storage: -1Gi}\n" + modes)),
            at + "spec.capacity.storage: \"-1Gi\" is negative; a size must be 0 or more");
  EXPECT_NE(parse_error(volume("  capacity: {storage: ten}\n" + modes))
                .find(at + "spec.capacity.storage: "),
            std::string::npos);
  EXPECT_EQ(parse_error(volume("  capacity: {storage: \"\"}\n" + modes)),
            at + "spec.capacity.storage: has no value; write a quantity, e.g. \"10Gi\"");
  EXPECT_EQ(parse_error(volume("  capacity: {storage: 1Gi}\n")),
            at + "spec.accessModes: is missing; give at least one access mode, e.g. "
                 "[ReadWriteOnce]");
  EXPECT_EQ(parse_error(volume("  capacity: {storage: 1Gi}\n  accessModes: []\n")),
            at + "spec.accessModes: is empty; give at least one access mode, e.g. "
                 "[ReadWriteOnce]");
  EXPECT_EQ(
      parse_error(volume("  capacity: {storage: 1Gi}\n  accessModes: [ReadWriteOnce, RWX]\n")),
      at + "spec.accessModes[1]: \"RWX\" is not an access mode; use ReadWriteOnce, "
           "ReadOnlyMany, ReadWriteMany or ReadWriteOncePod");
  EXPECT_EQ(parse_error(volume("  capacity: {storage: 1Gi}\n"
                               "  accessModes: [ReadWriteOncePod, ReadOnlyMany]\n")),
            at + "spec.accessModes: ReadWriteOncePod cannot be given with other access modes; "
                 "give it alone");
  EXPECT_EQ(parse_error(volume(kPlainSpec, "  volumeMode: Raw\n")),
            at + "spec.volumeMode: \"Raw\" is not a volume mode; use Filesystem or Block");
  EXPECT_EQ(parse_error(volume(kPlainSpec, "  claimRef: {namespace: shop}\n")),
            at + "spec.claimRef.name: is missing; name the claim the volume is bound to, or "
                 "remove claimRef");
  EXPECT_EQ(parse_error(volume(kPlainSpec, "  nodeAffinity: {}\n")),
            at + "spec.nodeAffinity.required: is missing; give required.nodeSelectorTerms, or "
                 "remove nodeAffinity");
  EXPECT_EQ(
      parse_error(volume(kPlainSpec, "  nodeAffinity: {required: {nodeSelectorTerms: []}}\n")),
      at + "spec.nodeAffinity.required.nodeSelectorTerms: is empty; give at least one "
           "term, or remove nodeAffinity");
  // The terms are checked as a pod's node affinity is.
  EXPECT_EQ(parse_error(volume(kPlainSpec,
                               "  nodeAffinity:\n    required:\n      nodeSelectorTerms:\n"
                               "      - matchExpressions: [{key: zone, operator: Near}]\n")),
            at + "spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].operator: "
                 "\"Near\" is not an operator; use In, NotIn, Exists, DoesNotExist, Gt or Lt");
  EXPECT_EQ(parse_error(volume(kPlainSpec,
                               "  nodeAffinity:\n    required:\n      nodeSelectorTerms:\n"
                               "      - matchExpressions: [{key: zone, operator: In}]\n")),
            at + "spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].values: "
                 "is empty; In needs at least one value");
  EXPECT_EQ(parse_error(volume(kPlainSpec, "  csi: {volumeHandle: v}\n")),
            at + "spec.csi.driver: is missing; name the CSI driver, e.g. ebs.csi.aws.com");
  EXPECT_EQ(parse_error(volume(kPlainSpec, "  csi: {driver: d}\n")),
            at + "spec.csi.volumeHandle: is missing; give the driver's name for the volume");
  EXPECT_EQ(parse_error(volume(kPlainSpec, "status: {phase: Lost}\n")),
            at + "status.phase: \"Lost\" is not a volume phase; use Pending, Available, Bound, "
                 "Released or Failed");
}

TEST(StorageDecoderErrors, ClaimsAsTheApiServerValidatesThem) {
  const std::string at = "cluster.yaml: document 1 (PersistentVolumeClaim shop/data): field ";
  EXPECT_EQ(parse_error(claim("  accessModes: [ReadWriteOnce]\n")),
            at + "spec.resources.requests.storage: is missing; give the size the claim asks "
                 "for, e.g. 10Gi");
  EXPECT_EQ(parse_error(claim("  accessModes: [ReadWriteOnce]\n  volumeName: pv-1\n")),
            at + "spec.resources.requests.storage: is missing; give the size the claim asks "
                 "for, e.g. 10Gi");
  EXPECT_EQ(parse_error(claim("  accessModes: [ReadWriteOnce]\n"
                              "  resources: {requests: {storage: -5Mi}}\n")),
            at + "spec.resources.requests.storage: \"-5Mi\" is negative; a size must be 0 or "
                 "more");
  EXPECT_EQ(parse_error(claim("  resources: {requests: {storage: 1Gi}}\n")),
            at + "spec.accessModes: is missing; give at least one access mode, e.g. "
                 "[ReadWriteOnce]");
  EXPECT_EQ(parse_error(claim("  accessModes: [Once]\n  resources: {requests: {storage: 1Gi}}\n")),
            at + "spec.accessModes[0]: \"Once\" is not an access mode; use ReadWriteOnce, "
                 "ReadOnlyMany, ReadWriteMany or ReadWriteOncePod");
  EXPECT_EQ(parse_error(claim(kClaimSpec, "  volumeMode: block\n")),
            at + "spec.volumeMode: \"block\" is not a volume mode; use Filesystem or Block");
  EXPECT_EQ(parse_error(claim(kClaimSpec,
                              "  selector:\n    matchExpressions:\n"
                              "    - {key: zone, operator: Equals, values: [a]}\n")),
            at + "spec.selector.matchExpressions[0].operator: \"Equals\" is not an operator; a "
                 "label selector takes In, NotIn, Exists or DoesNotExist");
  EXPECT_EQ(parse_error(claim(kClaimSpec, "status: {phase: Available}\n")),
            at + "status.phase: \"Available\" is not a claim phase; use Pending, Bound or Lost");
  EXPECT_EQ(parse_error(claim(kClaimSpec, "",
                              "{namespace: shop, name: data, ownerReferences: ["
                              "{kind: Pod, name: a, uid: '1', controller: true}, "
                              "{kind: Pod, name: b, uid: '2', controller: true}]}")),
            at + "metadata.ownerReferences[1].controller: is true for a second owner; only one "
                 "owner reference may be the controller");
}

TEST(StorageDecoderErrors, StorageClassesAsTheApiServerValidatesThem) {
  const std::string at = "cluster.yaml: document 1 (StorageClass fast): field ";
  EXPECT_EQ(parse_error(storage_class("volumeBindingMode: Immediate\n")),
            at + "provisioner: is missing; name what provisions the class's volumes, e.g. "
                 "ebs.csi.aws.com, or kubernetes.io/no-provisioner for volumes made by hand");
  EXPECT_EQ(parse_error(storage_class("provisioner: p\nvolumeBindingMode: Later\n")),
            at + "volumeBindingMode: \"Later\" is not a volume binding mode; use Immediate or "
                 "WaitForFirstConsumer");
  EXPECT_EQ(parse_error(storage_class("provisioner: p\nallowedTopologies: [{}]\n")),
            at + "allowedTopologies[0].matchLabelExpressions: is empty; give at least one "
                 "requirement, or remove the term");
  EXPECT_EQ(parse_error(storage_class(
                "provisioner: p\nallowedTopologies:\n- matchLabelExpressions: [{values: [a]}]\n")),
            at + "allowedTopologies[0].matchLabelExpressions[0].key: is missing; name the "
                 "topology label, e.g. topology.kubernetes.io/zone");
  EXPECT_EQ(parse_error(storage_class(
                "provisioner: p\nallowedTopologies:\n- matchLabelExpressions: [{key: zone}]\n")),
            at + "allowedTopologies[0].matchLabelExpressions[0].values: is empty; give at least "
                 "one value");
  EXPECT_EQ(parse_error(storage_class("provisioner: p\nallowedTopologies:\n"
                                      "- matchLabelExpressions:\n"
                                      "  - {key: zone, values: [a]}\n"
                                      "  - {key: zone, values: [b]}\n")),
            at + "allowedTopologies[0].matchLabelExpressions[1].key: \"zone\" is already "
                 "required in this term; give each key once");
}

TEST(StorageDecoderErrors, CSINodesAsTheApiServerValidatesThem) {
  const std::string at = "cluster.yaml: document 1 (CSINode n1): field ";
  EXPECT_EQ(parse_error(csi_node("  - {nodeID: i-1}\n")),
            at + "spec.drivers[0].name: is missing; name the CSI driver, e.g. ebs.csi.aws.com");
  EXPECT_EQ(parse_error(csi_node("  - {name: d}\n")),
            at + "spec.drivers[0].nodeID: is missing; give the driver's ID for the node");
  EXPECT_EQ(parse_error(csi_node("  - {name: d, nodeID: i, allocatable: {count: -1}}\n")),
            at + "spec.drivers[0].allocatable.count: -1 is negative; write 0 or more");
  EXPECT_EQ(parse_error(csi_node("  - {name: d, nodeID: i}\n  - {name: d, nodeID: j}\n")),
            at + "spec.drivers[1].name: \"d\" is already listed at spec.drivers[0]; list each "
                 "driver once");
}

TEST(StorageDecoderErrors, CSIDriversAndCapacitiesAsTheApiServerValidatesThem) {
  EXPECT_EQ(parse_error("apiVersion: storage.k8s.io/v1\nkind: CSIDriver\nmetadata: {name: d}\n"
                        "spec: {attachRequired: maybe}\n"),
            "cluster.yaml: document 1 (CSIDriver d): field spec.attachRequired: \"maybe\" is not "
            "a boolean; write true or false");
  const std::string at =
      "cluster.yaml: document 1 (CSIStorageCapacity kube-system/csisc-1): field ";
  EXPECT_EQ(parse_error(capacity("capacity: 1Gi\n")),
            at + "storageClassName: is missing; name the StorageClass it is for");
  EXPECT_EQ(parse_error(capacity("storageClassName: fast\ncapacity: -1\n")),
            at + "capacity: \"-1\" is negative; a size must be 0 or more");
  EXPECT_EQ(parse_error(capacity("storageClassName: fast\nmaximumVolumeSize: -2Gi\n")),
            at + "maximumVolumeSize: \"-2Gi\" is negative; a size must be 0 or more");
  EXPECT_EQ(
      parse_error(capacity("storageClassName: fast\n"
                           "nodeTopology: {matchExpressions: [{key: zone, operator: In}]}\n")),
      at + "nodeTopology.matchExpressions[0].values: is empty; In needs at least one value");
}

TEST(StorageDecoderErrors, ApiVersionsAreKeptExactly) {
  EXPECT_EQ(parse_error("apiVersion: storage.k8s.io/v1beta1\nkind: CSIStorageCapacity\n"
                        "metadata: {name: c}\nstorageClassName: fast\n"),
            "cluster.yaml: document 1 (CSIStorageCapacity c): field apiVersion: "
            "\"storage.k8s.io/v1beta1\" is not an apiVersion of CSIStorageCapacity; write "
            "apiVersion: storage.k8s.io/v1");
  EXPECT_EQ(parse_error("apiVersion: storage.k8s.io/v1\nkind: PersistentVolume\n"
                        "metadata: {name: pv}\n"),
            "cluster.yaml: document 1 (PersistentVolume pv): field apiVersion: "
            "\"storage.k8s.io/v1\" is not an apiVersion of PersistentVolume; write apiVersion: v1");
}

TEST(StorageDecoderErrors, PodVolumesAsTheApiServerValidatesThem) {
  const std::string at = "cluster.yaml: document 1 (Pod shop/web-0): field ";
  EXPECT_EQ(parse_error(pod("  - {name: data, persistentVolumeClaim: {readOnly: true}}\n")),
            at + "spec.volumes[0].persistentVolumeClaim.claimName: is missing; name the "
                 "PersistentVolumeClaim to mount");
  EXPECT_EQ(parse_error(pod("  - {name: scratch, ephemeral: {}}\n")),
            at + "spec.volumes[0].ephemeral.volumeClaimTemplate: is missing; give the claim to "
                 "create for the pod (its spec)");
  EXPECT_EQ(parse_error(pod("  - ephemeral: {volumeClaimTemplate: {spec: {}}}\n")),
            at + "spec.volumes[0].name: is missing; name the volume (its claim is named "
                 "POD-VOLUME)");
  EXPECT_EQ(parse_error(pod("  - {name: data, persistentVolumeClaim: web-data}\n")),
            at + "spec.volumes[0].persistentVolumeClaim: is \"web-data\", not a mapping; write "
                 "it as key: value pairs");
}

}  // namespace
}  // namespace scoria::source
