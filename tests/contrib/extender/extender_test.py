#!/usr/bin/env python3
"""The extender plugin against a real extender process on loopback.

  extender_test.py SCORIA SOURCE_DIR CASE

CASE is one of:
  outcome      the example extender vetoes n1 and scores n2: one pod lands
               on n2, the other on n3, none on n1; the job and queue verbs
               (answered "no opinion") are asked too; each session's calls
               share one connection
  slow         an extender that answers long after extender.httpTimeout:
               with ignorable true the pods bind as without it; with
               ignorable false the predicate fails and nothing binds; each
               session calls the dead extender once and logs it once
  unreachable  nothing listens on the port: as slow, through a failed
               session-open verb
  preemptable  preempt must evict one of two like pods, each filling a node
               (preempt.yaml): without the extender it evicts batch-a on n1;
               with the extender asked preemptable and protecting batch-a,
               it evicts batch-b instead, urgent-0 binds to n2 and batch-a
               is untouched; the extender was asked about both and told of
               the eviction (deallocate) of batch-b alone
  reclaimable  the same for reclaim between two queues (reclaim.yaml):
               old-a by default; old-b, and new-0 on n2, with old-a
               protected
  novictims    an extender that names no victim (every evictee protected),
               and one that cannot be reached (extender.ignorable false or
               true),
               leave preempt and reclaim nothing to evict: no eviction, the
               pending pod stays pending

No assertion depends on timing: the slow extender's delay is far beyond
the timeout, and every wait for the processes is generous.
"""

import atexit
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import urllib.request

SCORIA, SOURCE, CASE = sys.argv[1], sys.argv[2], sys.argv[3]
CLUSTER = os.path.join(SOURCE, "tests", "contrib", "extender", "cluster.yaml")
EXTENDER = os.path.join(SOURCE, "plugins-contrib", "node-veto-extender", "extender.py")
WORK = tempfile.mkdtemp(prefix="scoria-extender-test-")
atexit.register(shutil.rmtree, WORK, ignore_errors=True)
CYCLES = 2


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def start_extender(*args):
    proc = subprocess.Popen([sys.executable, EXTENDER, "--port", "0", *args],
                            stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline()  # blocks until it listens (or dies)
    if not line.startswith("listening on "):
        proc.kill()
        fail("the extender did not start: %r" % line)
    return proc, line.split()[-1]


def stats(url):
    with urllib.request.urlopen(url + "/stats", timeout=60) as r:
        return json.load(r)


def config(url, ignorable, verbs, timeout="10s"):
    lines = [
        'actions: "enqueue, allocate"',
        "tiers:",
        "- plugins:",
        "  - name: priority",
        "  - name: gang",
        "- plugins:",
        "  - name: predicates",
        "  - name: nodeorder",
        "  - name: extender",
        "    arguments:",
        "      extender.urlPrefix: " + url,
        "      extender.httpTimeout: " + timeout,
        "      extender.ignorable: " + ("true" if ignorable else "false"),
    ]
    lines += ["      extender.%sVerb: %s" % (k, v) for k, v in verbs.items()]
    path = os.path.join(WORK, "scheduler-%d.yaml" % len(os.listdir(WORK)))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path


def simulate(conf, cluster=CLUSTER):
    r = subprocess.run([SCORIA, "simulate", "--config", conf, "--cycles", str(CYCLES),
                        "--output", "json", cluster],
                       capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        fail("scoria simulate exited %d: %s" % (r.returncode, r.stderr))
    return json.loads(r.stdout), r.stderr


def warnings(stderr, argument):
    return [l for l in stderr.splitlines() if argument in l and "failed" in l]


def outcome():
    proc, url = start_extender("--veto-label", "scoria.io/extender-veto=true",
                               "--prefer-node", "n2")
    try:
        verbs = {"onSessionOpen": "onSessionOpen", "onSessionClose": "onSessionClose",
                 "predicate": "predicate", "prioritize": "prioritize",
                 "allocateFunc": "allocate", "jobEnqueueable": "jobEnqueueable",
                 "jobEnqueued": "jobEnqueued", "jobReady": "jobReady",
                 "queueOverused": "queueOverused"}
        out, err = simulate(config(url, False, verbs))
        binds = out.get("binds", {})
        if sorted(binds) != ["team/p1", "team/p2"] or sorted(binds.values()) != ["n2", "n3"]:
            fail("expected one pod on n2 (scored) and one on n3 (n1 vetoed), got %s\n%s"
                 % (binds, err))
        seen = stats(url)
        req = seen["requests"]
        for verb in ("onSessionOpen", "onSessionClose", "predicate", "prioritize", "allocate",
                     "jobEnqueueable", "jobEnqueued", "jobReady", "queueOverused"):
            if req.get(verb, 0) == 0:
                fail("the extender was never asked %s: %s" % (verb, req))
        if req["onSessionOpen"] != CYCLES or req["onSessionClose"] != CYCLES:
            fail("expected one session open and close per cycle: %s" % req)
        if req["allocate"] != 2:
            fail("expected one allocate event per pod: %s" % req)
        # The bodies carry Volcano's Go field names.
        shapes = seen["shapes"]
        task = {"UID", "Job", "Name", "Namespace", "TaskRole", "Resreq", "InitResreq",
                "NodeName", "Status", "Priority", "Preemptable", "BestEffort", "Pod"}
        node = {"Name", "Node", "State", "Releasing", "Pipelined", "Idle", "Used",
                "Allocatable", "Capacity", "Tasks"}
        want = {"predicate": {"task": task, "node": node},
                "prioritize": {"task": task, "nodes": node},
                "allocate": {"task": task},
                "jobReady": {"job": {"UID", "Name", "Namespace", "Queue", "MinAvailable",
                                     "Tasks", "PodGroup", "Allocated", "TotalRequest"}},
                "queueOverused": {"queue": {"UID", "Name", "Weight", "Queue"}},
                "onSessionOpen": {"Jobs": set(), "Nodes": set(), "Queues": set(),
                                  "NamespaceInfo": set(), "RevocableNodes": set()}}
        for verb, fields in want.items():
            got = shapes.get(verb, {})
            for key, inner in fields.items():
                if key not in got or not inner <= set(got[key]):
                    fail("%s: expected %s with %s, got %s" % (verb, key, sorted(inner), got))
        # One keep-alive connection per session.
        if seen["connections"] != CYCLES:
            fail("expected %d connections (one per session), saw %d for %s"
                 % (CYCLES, seen["connections"], req))
    finally:
        proc.kill()
        proc.wait(timeout=60)


def check_failing(url, extra_verbs, expect_calls):
    verbs = dict(extra_verbs, predicate="predicate")
    # ignorable: the extender is no opinion, the pods bind as without it.
    out, err = simulate(config(url, True, verbs, timeout="300ms"))
    binds = out.get("binds", {})
    if sorted(binds) != ["team/p1", "team/p2"]:
        fail("ignorable: expected both pods bound, got %s\n%s" % (binds, err))
    first = next(iter(extra_verbs), "predicate")
    # The predicate is asked only while pods are pending: in the first
    # session alone once they are bound; session open is called in each.
    asked = CYCLES if first != "predicate" else 1
    lines = warnings(err, "extender.%sVerb" % first)
    if len(lines) != asked:
        fail("ignorable: expected one warning per session that called it (%d), got %d:\n%s"
             % (asked, len(lines), err))
    # not ignorable: the predicate fails closed, nothing binds.
    out, err = simulate(config(url, False, verbs, timeout="300ms"))
    if out.get("binds"):
        fail("not ignorable: expected no binds, got %s\n%s" % (out.get("binds"), err))
    lines = warnings(err, "extender.%sVerb" % first)
    if len(lines) != CYCLES:
        fail("not ignorable: expected one warning per session, got %d:\n%s" % (len(lines), err))
    if expect_calls is not None:
        calls = sum(expect_calls()["requests"].values())
        # One call per session that asked before giving up: the first
        # session of the ignorable run, and every session of the other.
        if calls != asked + CYCLES:
            fail("expected the dead extender to be called once per session, got %d" % calls)


def slow():
    proc, url = start_extender("--delay", "120")
    try:
        check_failing(url, {}, lambda: stats(url))
    finally:
        proc.kill()
        proc.wait(timeout=60)


def unreachable():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()  # nothing listens there now
    check_failing("http://127.0.0.1:%d" % port, {"onSessionOpen": "onSessionOpen"}, None)


# --- preemptable, reclaimable, novictims ------------------------------------

# Two nodes, each full with one of two like pods: the action evicts `x` on
# `x_node` unless told otherwise; `y` on `y_node` is the other choice.
EVICTION = {
    "preempt": {"cluster": "preempt.yaml", "verb": "preemptable", "evictor": "team/urgent-0",
                "x": "team/batch-a", "x_node": "n1", "y": "team/batch-b", "y_node": "n2"},
    "reclaim": {"cluster": "reclaim.yaml", "verb": "reclaimable", "evictor": "new/new-0",
                "x": "old/old-a", "x_node": "n1", "y": "old/old-b", "y_node": "n2"},
}


def eviction_config(action, url=None, verbs=None, ignorable=False):
    # Victims are decided by the first tier whose plugins name any (an empty
    # answer, the extender's included, passes the decision to the next
    # tier, as in Volcano's Session.Preemptable/Reclaimable), so the
    # extender sits in the one tier that votes on victims.
    lines = [
        'actions: "enqueue, allocate, %s"' % action,
        "tiers:",
        "- plugins:",
        "  - name: priority",
        "  - name: gang",
        "  - name: conformance",
    ]
    if action == "reclaim":
        lines.append("  - name: proportion")
    if url is not None:
        lines += [
            "  - name: extender",
            "    arguments:",
            "      extender.urlPrefix: " + url,
            "      extender.httpTimeout: 10s",
            "      extender.ignorable: " + ("true" if ignorable else "false"),
        ]
        lines += ["      extender.%sVerb: %s" % (k, v) for k, v in (verbs or {}).items()]
    lines += ["- plugins:", "  - name: predicates", "  - name: nodeorder"]
    path = os.path.join(WORK, "scheduler-%d.yaml" % len(os.listdir(WORK)))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path


def run_eviction(action, conf):
    out, err = simulate(conf, os.path.join(os.path.dirname(CLUSTER), EVICTION[action]["cluster"]))
    return out.get("evictions", []), out.get("binds", {}), err


def eviction_case(action):
    e = EVICTION[action]
    verb, evictor, x, y = e["verb"], e["evictor"], e["x"], e["y"]
    # Without the extender: the default victim is x.
    evicted, binds, err = run_eviction(action, eviction_config(action))
    if evicted != [x] or binds != {evictor: e["x_node"]}:
        fail("%s without the extender: expected %s evicted and %s bound to %s, got "
             "evictions %s, binds %s\n%s" % (action, x, evictor, e["x_node"], evicted, binds, err))
    # The extender protects x: y goes instead, x is untouched.
    proc, url = start_extender("--protect-pod", x)
    try:
        verbs = {verb: verb, "allocateFunc": "allocate", "deallocateFunc": "deallocate"}
        evicted, binds, err = run_eviction(action, eviction_config(action, url, verbs))
        if evicted != [y] or binds != {evictor: e["y_node"]}:
            fail("%s with %s protected by the extender: expected %s evicted and %s bound to "
                 "%s, got evictions %s, binds %s\n%s"
                 % (action, x, y, evictor, e["y_node"], evicted, binds, err))
        seen = stats(url)
        asked = seen["asked"].get(verb, [])
        # Asked about each node's pod by the pending one; x refused, y given.
        if {"evictor": evictor, "evictees": [x], "victims": []} not in asked or \
                {"evictor": evictor, "evictees": [y], "victims": [y]} not in asked:
            fail("%s: expected the extender asked about %s (no victim) and %s (victim) for "
                 "%s, got %s" % (verb, x, y, evictor, asked))
        task = {"UID", "Job", "Name", "Namespace", "Resreq", "NodeName", "Status", "Priority",
                "Pod"}
        got = seen["shapes"].get(verb, {})
        for key in ("evictor", "evictees"):
            if not task <= set(got.get(key, [])):
                fail("%s: expected %s with %s, got %s" % (verb, key, sorted(task), got))
        # Volcano's Statement.Evict calls the event handlers' DeallocateFunc.
        deallocated = seen["asked"].get("deallocate", [])
        if y not in deallocated or x in deallocated:
            fail("expected a deallocate for %s (evicted) and none for %s, got %s"
                 % (y, x, deallocated))
        if evictor not in seen["asked"].get("allocate", []):
            fail("expected an allocate for %s, got %s" % (evictor, seen["asked"]))
    finally:
        proc.kill()
        proc.wait(timeout=60)


def preemptable():
    eviction_case("preempt")


def reclaimable():
    eviction_case("reclaim")


def novictims():
    for action, e in EVICTION.items():
        verb = e["verb"]
        verbs = {verb: verb, "deallocateFunc": "deallocate"}
        # Every evictee protected: the extender decides, with no victim.
        proc, url = start_extender("--protect-pod", e["x"], "--protect-pod", e["y"])
        try:
            evicted, binds, err = run_eviction(action, eviction_config(action, url, verbs))
            if evicted or binds:
                fail("%s with no victim from the extender: expected no eviction and no bind, "
                     "got evictions %s, binds %s\n%s" % (action, evicted, binds, err))
            seen = stats(url)
            asked = seen["asked"].get(verb, [])
            if not asked or any(a["victims"] for a in asked):
                fail("%s: expected the extender asked and answering no victim, got %s"
                     % (verb, asked))
            if seen["requests"].get("deallocate"):
                fail("expected no deallocate, got %s" % seen["asked"].get("deallocate"))
        finally:
            proc.kill()
            proc.wait(timeout=60)
        # The extender cannot be reached: ignorable or not, its tier names no
        # victim, as Volcano's (Permit or Reject, with no victims), and
        # nothing is evicted.
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        s.close()
        for ignorable in (False, True):
            conf = eviction_config(action, "http://127.0.0.1:%d" % port, verbs, ignorable)
            evicted, binds, err = run_eviction(action, conf)
            if evicted or binds:
                fail("%s with an unreachable extender (ignorable %s): expected no eviction and "
                     "no bind, got evictions %s, binds %s\n%s"
                     % (action, ignorable, evicted, binds, err))
            if not warnings(err, "extender.%sVerb" % verb):
                fail("%s: expected a warning for the unreachable extender:\n%s" % (verb, err))


{"outcome": outcome, "slow": slow, "unreachable": unreachable, "preemptable": preemptable,
 "reclaimable": reclaimable, "novictims": novictims}[CASE]()
print("ok")
