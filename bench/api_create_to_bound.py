#!/usr/bin/python3
"""Creates a bench/gencluster.py cluster through scoria serve's API and times it.

  bench/api_create_to_bound.py SCORIA CONFIG CLUSTER.yaml [--runs 3] [--mode kube|apply]

mode kube:  one POST per object on the Kubernetes paths, from --connections
            keep-alive connections at once (32), as controllers with many
            workers create them; kinds in dependency order (a PodGroup before
            its pods), each kind's creates all acknowledged before the next;
mode apply: the whole file in one POST /api/v1/objects.
Prints, per run and as medians: the time until the last create was
acknowledged, and until the last pending pod was seen bound on a watch.
"""
import asyncio
import http.client
import json
import multiprocessing
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from servebench import parser  # noqa: E402

PATHS = {
    "Node": "/api/v1/nodes",
    "Pod": "/api/v1/namespaces/{ns}/pods",
    "PodGroup": "/apis/scheduling.volcano.sh/v1beta1/namespaces/{ns}/podgroups",
    "Queue": "/apis/scheduling.volcano.sh/v1beta1/queues",
    "PriorityClass": "/apis/scheduling.k8s.io/v1/priorityclasses",
}
ORDER = ["PriorityClass", "Queue", "Node", "PodGroup", "Pod"]


def start(scoria, config, state):
    # Truncated, then appended to: the child shares this file offset, and
    # our seek to read must not make it write over the log's start.
    open(os.path.join(state, "serve.log"), "w").close()
    log = open(os.path.join(state, "serve.log"), "a+")
    proc = subprocess.Popen([scoria, "serve", "--config", config, "--state-dir",
                             os.path.join(state, "db"), "--port", "0"],
                            stdout=log, stderr=subprocess.STDOUT)
    for _ in range(400):
        log.seek(0)
        m = re.search(r"listening on 127\.0\.0\.1:(\d+)", log.read())
        if m:
            return proc, int(m.group(1))
        time.sleep(0.05)
    raise RuntimeError("serve did not start")


def watch_binds(port, pending, pipe):
    """Watches bound pods (the API filters); sends "watching", then the monotonic time at which the
    last of `pending` was seen with a node (or an error). Reads the chunked
    stream off the socket in large blocks: a slow reader would be cut off
    by the server as a client that does not keep up."""
    sock = socket.create_connection(("127.0.0.1", port))
    sock.sendall(b"GET /api/v1/pods?watch=true&resourceVersion=0&fieldSelector=spec.nodeName%21%3D HTTP/1.1\r\n"
                 b"Host: 127.0.0.1\r\n\r\n")
    buf = b""
    while b"\r\n\r\n" not in buf:
        buf += sock.recv(65536)
    buf = buf[buf.index(b"\r\n\r\n") + 4:]
    pipe.send("watching")
    waiting = set(pending)
    while True:
        # One chunk: its size in hex, CRLF, the data, CRLF.
        eol = buf.find(b"\r\n")
        if eol < 0 or len(buf) < eol + 2 + int(buf[:eol], 16) + 2:
            more = sock.recv(1 << 20)
            if not more:
                pipe.send(f"the watch ended with {len(waiting)} pods not seen bound")
                return
            buf += more
            continue
        size = int(buf[:eol], 16)
        data, buf = buf[eol + 2:eol + 2 + size], buf[eol + 2 + size + 2:]
        if size == 0:
            pipe.send(f"the watch ended with {len(waiting)} pods not seen bound")
            return
        for line in data.split(b"\n"):
            if b'"nodeName"' not in line:
                continue
            o = json.loads(line)["object"]
            if o.get("spec", {}).get("nodeName"):
                waiting.discard(o["metadata"].get("namespace", "default") + "/" +
                                o["metadata"]["name"])
        if not waiting:
            pipe.send(time.monotonic())
            return


def prepare(docs):
    """Each kind's create requests, as bytes ready to send, in ORDER."""
    out = []
    for kind in ORDER:
        batch = []
        for o in docs:
            if o["kind"] != kind:
                continue
            body = json.dumps(o).encode()
            path = PATHS[kind].format(ns=o["metadata"].get("namespace", "default"))
            batch.append(f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                         f"Content-Type: application/json\r\n"
                         f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
        out.append(batch)
    return out


async def create_all(port, requests, connections):
    """Sends every kind's creates over `connections` connections, one
    request at a time on each; every answer must be 201."""
    conns = [await asyncio.open_connection("127.0.0.1", port) for _ in range(connections)]

    async def worker(conn, queue):
        reader, writer = conn
        while queue:
            req = queue.pop()
            writer.write(req)
            head = await reader.readuntil(b"\r\n\r\n")
            status = int(head[9:12])
            length = int(re.search(rb"(?i)content-length: *(\d+)", head).group(1))
            body = await reader.readexactly(length)
            if status != 201:
                raise RuntimeError(f"create answered {status}: {body[:300]!r}")

    for batch in requests:
        queue = list(reversed(batch))
        await asyncio.gather(*(worker(c, queue) for c in conns))
    for _, writer in conns:
        writer.close()


def run(args, docs, text, pending, requests):
    state = tempfile.mkdtemp(prefix="scoria-bench-")
    proc, port = start(args.scoria, args.config, state)
    try:
        # The watch is read by a process of its own, so that reading it
        # takes nothing from the client's creates.
        parent, child = multiprocessing.Pipe()
        watcher = multiprocessing.Process(target=watch_binds, args=(port, pending, child),
                                          daemon=True)
        watcher.start()
        parent.recv()  # watching
        time.sleep(0.3)
        t0 = time.monotonic()
        if args.mode == "apply":
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
            c.request("POST", "/api/v1/objects", body=text.encode(),
                      headers={"Content-Type": "application/yaml"})
            r = c.getresponse()
            r.read()
            assert r.status == 200, r.status
        else:
            asyncio.run(create_all(port, requests, args.connections))
        acked = time.monotonic() - t0
        if not parent.poll(600):
            raise RuntimeError("the pending pods were not all bound within 600 s")
        last_bind = parent.recv()
        if isinstance(last_bind, str):
            raise RuntimeError(last_bind)
        return acked, last_bind - t0
    finally:
        proc.terminate()
        proc.wait()
        shutil.rmtree(state, ignore_errors=True)


def main():
    p = parser()
    p.add_argument("--mode", choices=["kube", "apply"], default="kube")
    p.add_argument("--connections", type=int, default=32)
    args = p.parse_args()
    text = open(args.cluster).read()
    docs = [d for d in yaml.safe_load_all(text) if d]
    pending = {d["metadata"].get("namespace", "default") + "/" + d["metadata"]["name"]
               for d in docs if d["kind"] == "Pod" and not d.get("spec", {}).get("nodeName")}
    requests = prepare(docs)
    results = []
    for i in range(args.runs):
        acked, bound = run(args, docs, text, pending, requests)
        results.append((acked, bound))
        print(f"run {i + 1}: {len(docs)} objects acknowledged in {acked:.2f} s, "
              f"{len(pending)} pending pods bound after {bound:.2f} s", flush=True)
    print(f"median ({args.mode}): acknowledged {statistics.median(r[0] for r in results):.2f} s, "
          f"last bind seen {statistics.median(r[1] for r in results):.2f} s")


if __name__ == "__main__":
    sys.exit(main())
