#!/usr/bin/env python3
"""Writes a synthetic cluster, as the multi-document YAML `scoria simulate`
and `scoria ctl apply` read: Queues q0..q(N-1) (weight i + 1, open), Nodes
n0..n(N-1) over --zones zones, running background jobs in namespace bg
(their pods bound round-robin over the nodes) and pending gangs in
namespace work, each a PodGroup and its pods.

The benchmark clusters (bench/session_bench.py) are:

  S1  --nodes 1000 --gang-jobs 500 --gang-size 20
  S2  --nodes 5000 --running-jobs 87000 --running-pods 150000
      --gang-jobs 500 --gang-size 20 --queues 4
  S3  --nodes 1000 --gang-jobs 10000 --gang-size 1
  S4  --nodes 20000 --running-jobs 348000 --running-pods 600000
      --gang-jobs 2000 --gang-size 20 --queues 8
  S5  --nodes 65000 --running-jobs 500000 --running-pods 1000000
      --gang-jobs 5000 --gang-size 20 --queues 16

The output depends on the arguments alone, and is the same, byte for byte,
as the peer harnesses' generator of the same flags writes, so that numbers
measured on either cluster compare.

  bench/gencluster.py [--nodes N] [--running-jobs N --running-pods N]
                      [--gang-jobs N --gang-size N] [--queues N]
                      [--native-groups] > cluster.yaml

--native-groups writes Kubernetes' own gangs instead of Volcano's
PodGroups: scheduling.k8s.io/v1beta1 PodGroups (gang minCount, the queue
in the annotation scheduling.volcano.sh/queue-name), joined by their pods
through spec.schedulingGroup.podGroupName.
"""
import argparse
import sys


def options(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add = p.add_argument
    add("--nodes", type=int, default=1000)
    add("--node-cpu", type=int, default=64, help="cores per node")
    add("--node-mem-gi", type=int, default=256, help="memory per node, GiB")
    add("--node-pods", type=int, default=110, help="pods per node")
    add("--zones", type=int, default=4, help="topology.kubernetes.io/zone values")
    add("--queues", type=int, default=1)
    add("--running-jobs", type=int, default=0, help="background jobs, running")
    add("--running-pods", type=int, default=0, help="their pods, spread over the jobs")
    add("--gang-jobs", type=int, default=500, help="pending gangs")
    add("--gang-size", type=int, default=20, help="pods per gang")
    add("--min-member", type=int, default=-1, help="a gang's minMember (-1: its size)")
    add("--pod-cpu-m", type=int, default=1000, help="a gang pod's cpu request, millicores")
    add("--pod-mem-mi", type=int, default=4096, help="a gang pod's memory request, MiB")
    add("--bg-cpu-m", type=int, default=500, help="a background pod's cpu request")
    add("--bg-mem-mi", type=int, default=1024, help="a background pod's memory request")
    add("--scheduler-name", default="volcano")
    add("--native-groups", action="store_true",
        help="scheduling.k8s.io/v1beta1 PodGroups instead of Volcano's")
    a = p.parse_args(argv)
    for name in ("nodes", "zones", "queues"):
        if getattr(a, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be 1 or more")
    if a.running_pods and not a.running_jobs:
        p.error("--running-pods needs --running-jobs to hold them")
    return a


def queue(i):
    return ("---\napiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata:\n"
            f"  name: q{i}\nspec:\n  weight: {i + 1}\n  reclaimable: true\n"
            "status:\n  state: Open\n")


def node(i, a):
    resources = (f"    cpu: \"{a.node_cpu}\"\n    memory: {a.node_mem_gi}Gi\n"
                 f"    pods: \"{a.node_pods}\"\n")
    return ("---\napiVersion: v1\nkind: Node\nmetadata:\n"
            f"  name: n{i}\n  labels:\n    kubernetes.io/hostname: n{i}\n"
            f"    topology.kubernetes.io/zone: z{i % a.zones}\n"
            f"status:\n  allocatable:\n{resources}  capacity:\n{resources}"
            "  conditions:\n  - type: Ready\n    status: \"True\"\n")


def pod_group(ns, name, queue_name, min_member, phase, native=False):
    if native:
        # Kubernetes' own gang has no phase: a running one is scheduled.
        status = ("status:\n  conditions:\n  - type: PodGroupInitiallyScheduled\n"
                  "    status: \"True\"\n    reason: Scheduled\n") if phase == "Running" else ""
        return ("---\napiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata:\n"
                f"  namespace: {ns}\n  name: {name}\n  annotations:\n"
                f"    scheduling.volcano.sh/queue-name: {queue_name}\nspec:\n"
                f"  schedulingPolicy:\n    gang:\n      minCount: {min_member}\n{status}")
    return ("---\napiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\nmetadata:\n"
            f"  namespace: {ns}\n  name: {name}\nspec:\n  minMember: {min_member}\n"
            f"  queue: {queue_name}\nstatus:\n  phase: {phase}\n")


def pod(ns, name, group, cpu_m, mem_mi, scheduler, node_name, native=False):
    bound = f"  nodeName: {node_name}\n" if node_name is not None else ""
    phase = "Running" if node_name is not None else "Pending"
    meta = ("" if native else
            f"  annotations:\n    scheduling.k8s.io/group-name: {group}\n")
    joins = f"  schedulingGroup:\n    podGroupName: {group}\n" if native else ""
    return ("---\napiVersion: v1\nkind: Pod\nmetadata:\n"
            f"  namespace: {ns}\n  name: {name}\n{meta}spec:\n  schedulerName: {scheduler}\n"
            f"{joins}{bound}  containers:\n  - name: main\n    image: busybox\n    resources:\n"
            f"      requests:\n        cpu: {cpu_m}m\n        memory: {mem_mi}Mi\n"
            f"status:\n  phase: {phase}\n")


def documents(a):
    for i in range(a.queues):
        yield queue(i)
    for i in range(a.nodes):
        yield node(i, a)
    # Background jobs share the running pods out evenly (the first ones one
    # more), bound round-robin over the nodes in order.
    if a.running_jobs:
        per_job, extra = divmod(a.running_pods, a.running_jobs)
        placed = 0
        for j in range(a.running_jobs):
            size = per_job + (1 if j < extra else 0)
            group = f"bg{j}"
            yield pod_group("bg", group, f"q{j % a.queues}", size, "Running", a.native_groups)
            for t in range(size):
                yield pod("bg", f"{group}-{t}", group, a.bg_cpu_m, a.bg_mem_mi,
                          a.scheduler_name, f"n{placed % a.nodes}", a.native_groups)
                placed += 1
    min_member = a.gang_size if a.min_member < 0 else a.min_member
    for j in range(a.gang_jobs):
        group = f"job{j}"
        yield pod_group("work", group, f"q{j % a.queues}", min_member, "Inqueue",
                        a.native_groups)
        for t in range(a.gang_size):
            yield pod("work", f"{group}-{t}", group, a.pod_cpu_m, a.pod_mem_mi,
                      a.scheduler_name, None, a.native_groups)


def main(argv):
    a = options(argv)
    out = sys.stdout
    batch = []
    for doc in documents(a):
        batch.append(doc)
        if len(batch) == 4096:
            out.write("".join(batch))
            batch.clear()
    out.write("".join(batch))


if __name__ == "__main__":
    main(sys.argv[1:])
