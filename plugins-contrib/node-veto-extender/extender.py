#!/usr/bin/env python3
"""A tiny scheduler extender for Scoria's (and Volcano's) `extender` plugin.

Standard library only. It answers the extender's verbs over HTTP/1.1 with
keep-alive:

  POST /predicate   refuses nodes carrying the label given by --veto-label
                    (KEY=VALUE), with code 3 (UnschedulableAndUnresolvable)
  POST /prioritize  scores the node named by --prefer-node 100, others 0
  POST /preemptable, /reclaimable
                    with --protect-pod NAMESPACE/NAME (repeatable): decide
                    (status 1) and name as victims every evictee except the
                    protected pods, so none of them is ever evicted; all
                    evictees protected is an answer of no victims, which
                    lets the action evict nothing there. Without it: no
                    opinion (status 0)
  POST /onSessionOpen, /onSessionClose, /allocate, /deallocate,
       /jobEnqueueable, /jobEnqueued, /jobReady, /queueOverused
                    answer "no opinion" (a vote of 0, ready, not overused)
  GET  /stats       what it was asked: requests per verb, how many
                    connections carried them, the shape of the last
                    request of each verb (its keys, and the keys of each
                    object in it), and under "asked" the pods of the last
                    100 calls of each task verb: NAMESPACE/NAME of the task
                    for /allocate and /deallocate; the evictor, the
                    evictees and the victims answered for /preemptable and
                    /reclaimable

--delay SECONDS makes every POST wait that long before answering (to see
what extender.httpTimeout and extender.ignorable do with a slow extender).
It prints "listening on http://HOST:PORT" once it accepts connections;
--port 0 picks a free port.
"""

import argparse
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


ASKED_KEPT = 100  # calls remembered per verb under /stats "asked"


def pod_name(task):
    """NAMESPACE/NAME of a TaskInfo (Volcano's Go field names)."""
    task = task or {}
    return "%s/%s" % (task.get("Namespace", ""), task.get("Name", ""))


class Extender:
    def __init__(self, veto_label, prefer_node, delay, protect=()):
        self.veto = tuple(veto_label.split("=", 1)) if veto_label else None
        self.prefer = prefer_node
        self.delay = delay
        self.protect = set(protect)
        self.lock = threading.Lock()
        self.requests = {}
        self.connections = 0
        self.shapes = {}
        self.asked = {}

    def predicate(self, req):
        labels = (((req.get("node") or {}).get("Node") or {}).get("metadata") or {}).get(
            "labels"
        ) or {}
        if self.veto and labels.get(self.veto[0]) == self.veto[1]:
            return {"status": "node has label %s=%s" % self.veto, "code": 3}
        return {"status": "", "code": 0}

    def prioritize(self, req):
        names = [n.get("Name") for n in (req.get("nodes") or [])]
        return {"nodeScore": {n: (100 if n == self.prefer else 0) for n in names},
                "errorMessage": ""}

    def victims(self, req):
        """Volcano's PreemptableResponse / ReclaimableResponse: status 1
        (Permit) decides, and the victims are TaskInfo objects, of which the
        plugin reads the UID; status 0 would abstain."""
        if not self.protect:
            return {"status": 0, "victims": []}
        evictees = [t for t in (req.get("evictees") or []) if t]
        return {"status": 1,
                "victims": [t for t in evictees if pod_name(t) not in self.protect]}

    def remember(self, verb, req, out):
        if verb in ("allocate", "deallocate"):
            entry = pod_name(req.get("task"))
        elif verb in ("preemptable", "reclaimable"):
            entry = {"evictor": pod_name(req.get("evictor")),
                     "evictees": [pod_name(t) for t in (req.get("evictees") or []) if t],
                     "victims": [pod_name(t) for t in (out or {}).get("victims") or []]}
        else:
            return
        kept = self.asked.setdefault(verb, [])
        kept.append(entry)
        del kept[:-ASKED_KEPT]

    def answer(self, verb, req):
        if verb == "predicate":
            return self.predicate(req)
        if verb == "prioritize":
            return self.prioritize(req)
        if verb in ("onSessionOpen", "onSessionClose", "jobEnqueued"):
            return {}
        if verb in ("allocate", "deallocate"):
            return {"errorMessage": ""}
        if verb == "jobEnqueueable":
            return {"status": 0}
        if verb == "jobReady":
            return {"status": True}
        if verb == "queueOverused":
            return {"overused": False}
        if verb in ("preemptable", "reclaimable"):
            return self.victims(req)
        return None


def shape(req):
    """{key: sorted keys of its value} for a request, the value's first item
    standing for a list."""
    out = {}
    for k, v in (req.items() if isinstance(req, dict) else []):
        if isinstance(v, list):
            v = v[0] if v else None
        out[k] = sorted(v) if isinstance(v, dict) else []
    return out


def handler_for(ext):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive
        # The answer goes out as two writes (headers, body): without this,
        # Nagle's algorithm holds the body back until the scheduler's
        # delayed ACK of the headers, some 40 ms per call.
        disable_nagle_algorithm = True

        def setup(self):
            super().setup()
            self.counted = False

        def log_message(self, *args):
            pass

        def reply(self, status, obj):
            body = json.dumps(obj).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            if self.path != "/stats":
                return self.reply(404, {"error": "not found"})
            with ext.lock:
                self.reply(200, {"requests": ext.requests, "connections": ext.connections,
                                 "shapes": ext.shapes, "asked": ext.asked})

        def do_POST(self):
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            verb = self.path.rstrip("/").rsplit("/", 1)[-1]
            with ext.lock:
                ext.requests[verb] = ext.requests.get(verb, 0) + 1
                if not self.counted:
                    ext.connections += 1
                    self.counted = True
            if ext.delay > 0:
                time.sleep(ext.delay)
            try:
                req = json.loads(raw or b"null") or {}
            except ValueError:
                return self.reply(400, {"error": "body is not JSON"})
            if not isinstance(req, dict):
                return self.reply(400, {"error": "body is not a JSON object"})
            out = ext.answer(verb, req)
            with ext.lock:
                ext.shapes[verb] = shape(req)
                ext.remember(verb, req, out)
            if out is None:
                return self.reply(404, {"error": "unknown verb " + verb})
            try:
                self.reply(200, out)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the scheduler gave up waiting (a --delay past its timeout)

    return Handler


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8888)
    p.add_argument("--veto-label", default="", help="KEY=VALUE: refuse nodes with this label")
    p.add_argument("--prefer-node", default="", help="node name to score 100")
    p.add_argument("--delay", type=float, default=0.0, help="seconds to wait before answering")
    p.add_argument("--protect-pod", action="append", default=[], metavar="NAMESPACE/NAME",
                   help="never name this pod a victim (preemptable, reclaimable); repeatable")
    a = p.parse_args()
    server = ThreadingHTTPServer((a.host, a.port), handler_for(
        Extender(a.veto_label, a.prefer_node, a.delay, a.protect_pod)))
    server.daemon_threads = True
    print("listening on http://%s:%d" % server.server_address[:2], flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
