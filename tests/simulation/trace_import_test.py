#!/usr/bin/env python3
"""scoria trace import: Scoria's CSV trace and the Alibaba GPU trace become
objects that simulate runs over time; bad rows are refused with file, line
and column; scripts/gentrace.py writes the same trace for the same seed.

usage: trace_import_test.py SCORIA SOURCE_DIR WORKDIR"""
import json
import os
import subprocess
import sys

import yaml

scoria, source, work = sys.argv[1], sys.argv[2], sys.argv[3]
here = os.path.dirname(os.path.abspath(__file__))
os.makedirs(work, exist_ok=True)


def run(*args, stdin=None):
    return subprocess.run([scoria, *args], capture_output=True, text=True, input=stdin, timeout=300)


def write(name, text):
    path = os.path.join(work, name)
    with open(path, "w") as f:
        f.write(text)
    return path


# A CSV trace, columns in another order, optional ones left empty.
trace = write("trace.csv",
              "arrival,name,duration,replicas,cpu,memory,queue,minAvailable,priority\n"
              "0,first,100,2,3,1Gi,research,,10\n"
              "5,second,50,2,3,1Gi,,1,\n")
out = run("trace", "import", trace)
assert out.returncode == 0, out.stderr
docs = [d for d in yaml.safe_load_all(out.stdout) if d]
kinds = [(d["kind"], d["metadata"]["name"]) for d in docs]
assert ("Queue", "research") in kinds and ("PriorityClass", "trace-priority-10") in kinds, kinds
groups = {d["metadata"]["name"]: d for d in docs if d["kind"] == "PodGroup"}
assert groups["first"]["spec"] == {"minMember": 2, "queue": "research",
                                   "priorityClassName": "trace-priority-10"}, groups["first"]
assert groups["second"]["spec"]["minMember"] == 1, groups["second"]
assert groups["second"]["metadata"]["annotations"]["scoria.io/arrival"] == "5"
pods = [d for d in docs if d["kind"] == "Pod"]
assert len(pods) == 4 and all(p["metadata"]["annotations"]["scoria.io/duration"] in ("100", "50")
                              for p in pods), pods
objects = write("trace.yaml", out.stdout)
nodes = write("nodes.yaml", "".join(
    f"---\napiVersion: v1\nkind: Node\nmetadata: {{name: node-{i}}}\n"
    f"status: {{allocatable: {{cpu: '4', memory: 8Gi, pods: '110'}}}}\n" for i in range(2)))
sim = run("simulate", "--config", os.path.join(source, "config/scheduler.toml"),
          "--now", "2024-05-01T00:00:00Z", nodes, objects)
assert sim.returncode == 0, sim.stderr
jobs = json.loads(sim.stdout)["metrics"]["jobs"]
# first takes both nodes for 100 s; second (arrived at 5 s) starts then.
assert jobs["trace/first"]["wait_s"] == 0.0 and jobs["trace/first"]["completion_s"] == 100.0, jobs
assert jobs["trace/second"]["wait_s"] == 95.0, jobs

# Bad rows: refused with file, line and column.
for body, message in [
    ("name,arrival,duration,replicas,cpu,memory\na,0,-5,1,1,1Gi\n",
     "line 2, column duration: \"-5\" is negative"),
    ("name,arrival,duration,replicas,cpu,memory\na,soon,5,1,1,1Gi\n",
     "line 2, column arrival: \"soon\" is not a number of seconds"),
    ("name,arrival,duration,replicas,cpu,memory,minAvailable\na,0,5,2,1,1Gi,3\n",
     "line 2, column minAvailable: \"3\" is out of range"),
    ("name,arrival,duration,replicas,cpu,memory\na,0,5,1,lots,1Gi\n",
     "line 2, column cpu: \"lots\" is not a quantity"),
    ("name,arrival,duration,replicas,cpu,memroy\na,0,5,1,1,1Gi\n",
     "line 1: unknown column \"memroy\""),
    ("name,arrival,duration,replicas,cpu,memory\na,0,5,1,1,1Gi\na,1,5,1,1,1Gi\n",
     "line 3, column name: \"a\" names a job already in the trace"),
    # What simulate would refuse is refused here, not written.
    ("name,arrival,duration,replicas,cpu,memory\na,1e300,5,1,1,1Gi\n",
     "line 2, column arrival: \"1e300\" is more seconds than simulate takes"),
    ("name,arrival,duration,replicas,cpu,memory\na,0,9000000000001,1,1,1Gi\n",
     "line 2, column duration: \"9000000000001\" is more seconds than simulate takes"),
    # A quote left open does not read the rest of the input into memory.
    ("name,arrival,duration,replicas,cpu,memory\n\"a" + "x" * (2 << 20) + "\n",
     "line 2: a row longer than 1048576 bytes"),
]:
    bad = write("bad.csv", body)
    r = run("trace", "import", bad)
    assert r.returncode == 2 and r.stdout == "", (body, r.returncode, r.stdout)
    assert bad + ": " + message in r.stderr, (message, r.stderr)

# The Alibaba GPU trace: a gang per job of its tasks' instances.
ali = run("trace", "import", "--format", "alibaba", "--job-table",
          os.path.join(here, "trace", "pai_job_table.csv"), "--queue-by-user",
          os.path.join(here, "trace", "pai_task_table.csv"))
assert ali.returncode == 0, ali.stderr
assert "skipped 2 rows" in ali.stderr, ali.stderr
docs = [d for d in yaml.safe_load_all(ali.stdout) if d]
groups = {d["metadata"]["name"]: d for d in docs if d["kind"] == "PodGroup"}
assert set(groups) == {"4f057009a5d481acec77c8f1", "6d2a1a81b1d2c3f05c6e1a7e"}, groups
first = groups["4f057009a5d481acec77c8f1"]
assert first["spec"]["minMember"] == 3 and first["spec"]["queue"] == "user-a", first
assert first["metadata"]["annotations"]["scoria.io/arrival"] == "0"
assert groups["6d2a1a81b1d2c3f05c6e1a7e"]["metadata"]["annotations"]["scoria.io/arrival"] == "60"
pods = {d["metadata"]["name"]: d for d in docs if d["kind"] == "Pod"}
tf = pods["4f057009a5d481acec77c8f1-tensorflow-0"]
requests = tf["spec"]["containers"][0]["resources"]["requests"]
assert requests == {"cpu": "6000m", "memory": "29297M", "nvidia.com/gpu": "1"}, requests
assert tf["metadata"]["annotations"]["volcano.sh/task-spec"] == "tensorflow"
assert tf["metadata"]["annotations"]["scoria.io/duration"] == "3600"
assert pods["6d2a1a81b1d2c3f05c6e1a7e-worker-3"]["spec"]["containers"][0]["resources"][
    "requests"]["nvidia.com/gpu"] == "2"

# The generator: a header, the rows asked for, the same for the same seed.
gen = [sys.executable, os.path.join(source, "scripts", "gentrace.py"), "--jobs", "50",
       "--days", "0.1", "--seed", "7"]
a = subprocess.run(gen, capture_output=True, text=True, check=True).stdout
b = subprocess.run(gen, capture_output=True, text=True, check=True).stdout
assert a == b and a.splitlines()[0].startswith("name,queue,arrival,duration"), a[:200]
assert len(a.splitlines()) == 51
assert run("trace", "import", "-", stdin=a).returncode == 0

# A long trace is read a row at a time and its pods written through a
# temporary file, not held whole: its objects are many times the bound.
# The sanitizers' own memory would hide the difference, so the bound is
# checked without them.
long_trace = write("long.csv", subprocess.run(
    [sys.executable, os.path.join(source, "scripts", "gentrace.py"), "--jobs", "200000",
     "--days", "30", "--seed", "3"], capture_output=True, text=True, check=True).stdout)
measure = ("import resource, subprocess, sys\n"
           "with open(sys.argv[3], 'w') as out:\n"
           "    r = subprocess.run([sys.argv[1], 'trace', 'import', sys.argv[2]], stdout=out)\n"
           "print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n")
objects_out = os.path.join(work, "long.yaml")
code, peak_kb = map(int, subprocess.run(
    [sys.executable, "-c", measure, scoria, long_trace, objects_out], capture_output=True,
    text=True, check=True).stdout.split())
assert code == 0
with open(objects_out) as f:
    assert sum(1 for line in f if line == "kind: PodGroup\n") == 200000
if "ASAN_OPTIONS" not in os.environ:
    assert peak_kb < 100 * 1024, f"trace import of 200,000 jobs peaked at {peak_kb} KB"
print("ok")
