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


def simulate(conf):
    r = subprocess.run([SCORIA, "simulate", "--config", conf, "--cycles", str(CYCLES),
                        "--output", "json", CLUSTER],
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


{"outcome": outcome, "slow": slow, "unreachable": unreachable}[CASE]()
print("ok")
