"""A Kubernetes API stand-in for tests: a real HTTP(S) server on loopback
that forwards every request to an upstream API server (a `scoria serve` over
its local store) and, on the test's say-so, answers in the ways a real API
server and a real network fail: a 410 in the middle of a watch, a connection
cut mid-stream, 409 on a bind, 429 with Retry-After, 500s, slow answers, an
object that does not decode. It counts what it forwards: the binds the
upstream accepted per pod, and the verbs used per resource (for RBAC).
"""
import http.client
import http.server
import json
import random
import re
import ssl
import sys
import threading
import time
import urllib.parse
from collections import Counter


def verb_of(method, path, query):
    """(verb, resource[/subresource], api group) as RBAC names them."""
    parts = [p for p in path.split("/") if p]
    if parts[:1] == ["api"]:
        group, rest = "", parts[2:]
    elif parts[:1] == ["apis"]:
        group, rest = parts[1], parts[3:]
    else:
        return None
    if rest[:1] == ["namespaces"] and len(rest) >= 3:
        rest = rest[2:]
    if not rest:
        return None
    resource = rest[0]
    named = len(rest) >= 2
    if len(rest) >= 3:
        resource += "/" + rest[2]
    q = urllib.parse.parse_qs(query)
    verb = {"GET": "get", "POST": "create", "PUT": "update", "PATCH": "patch",
            "DELETE": "delete"}[method]
    if method == "GET" and not named:
        verb = "watch" if q.get("watch", ["false"])[0] in ("true", "1") else "list"
    return verb, resource, group


class FaultProxy:
    def __init__(self, upstream_port, tls=None):
        """tls: dict(cert=, key=, ca=) to serve HTTPS and require client
        certificates signed by `ca`."""
        self.upstream_port = upstream_port
        self.lock = threading.Lock()
        self.binds = Counter()        # pod -> binds the upstream accepted
        self.bind_answers = []        # (pod, status) as answered to the client
        self.verbs = set()            # (verb, resource, group)
        self.rules = []               # functions(method, path, query, body) -> action or None
        self.token = None             # when set, requests must carry it as a bearer token
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_GET(self):
                try:
                    proxy.handle(self)
                except (BrokenPipeError, ConnectionResetError):
                    self.close_connection = True  # the client went away

            do_POST = do_PUT = do_PATCH = do_DELETE = do_GET

        class Server(http.server.ThreadingHTTPServer):
            # socketserver's backlog is 5: the scheduler's ten reflectors
            # connecting at once overflowed it on a loaded machine, and a
            # dropped SYN is retried after 1 s, then 3, 7, 15: a watch could
            # open 20 s late. An API server listens with the system's
            # backlog (Go's default), as Scoria's own does.
            request_queue_size = 4096

            def handle_error(self, request, client_address):
                # A client that hangs up (the scheduler stopping, a cut the
                # test made) is not an error of the proxy's.
                if not isinstance(sys.exc_info()[1], (ConnectionError, ssl.SSLError)):
                    super().handle_error(request, client_address)

        self.server = Server(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        if tls:
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ctx.load_cert_chain(tls["cert"], tls["key"])
            ctx.load_verify_locations(tls["ca"])
            ctx.verify_mode = ssl.CERT_REQUIRED
            self.server.socket = ctx.wrap_socket(self.server.socket, server_side=True)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()

    def add_rule(self, rule):
        with self.lock:
            self.rules.append(rule)

    def clear_rules(self):
        with self.lock:
            self.rules.clear()

    def decide(self, method, path, query, body):
        with self.lock:
            rules = list(self.rules)
        for rule in rules:
            action = rule(method, path, query, body)
            if action:
                return action
        return None

    # --- forwarding ---------------------------------------------------------

    def upstream(self, method, target, body, headers):
        conn = http.client.HTTPConnection("127.0.0.1", self.upstream_port, timeout=120)
        send = {k: v for k, v in headers.items()
                if k.lower() in ("content-type", "accept", "authorization")}
        conn.request(method, target, body=body, headers=send)
        return conn, conn.getresponse()

    def handle(self, h):
        target = h.path
        path, _, query = target.partition("?")
        length = int(h.headers.get("Content-Length") or 0)
        body = h.rfile.read(length) if length else b""
        if self.token and h.headers.get("Authorization") != "Bearer " + self.token:
            self.reply(h, 401, json.dumps({"kind": "Status", "code": 401,
                                           "reason": "Unauthorized",
                                           "message": "Unauthorized"}).encode(), {})
            return
        verb = verb_of(h.command, path, query)
        if verb:
            with self.lock:
                self.verbs.add(verb)
        action = self.decide(h.command, path, query, body) or {}
        if "delay" in action:
            time.sleep(action["delay"])
        if "status" in action:
            payload = json.dumps({"kind": "Status", "apiVersion": "v1", "status": "Failure",
                                  "code": action["status"],
                                  "reason": action.get("reason", "InternalError"),
                                  "message": action.get("message", "injected by the test")})
            self.reply(h, action["status"], payload.encode(), action.get("headers", {}))
            self.note_bind(path, action["status"], upstream_ok=False)
            return
        if "steal" in action:
            # Someone else binds the pod first; the client then hears 409.
            name = path.split("/")[-2]
            ns = path.split("/")[-4]
            other = json.dumps({"apiVersion": "v1", "kind": "Binding",
                                "metadata": {"name": name, "namespace": ns},
                                "target": {"kind": "Node", "name": action["steal"]}})
            conn, resp = self.upstream("POST", path, other.encode(),
                                       {"Content-Type": "application/json"})
            resp.read()
            conn.close()
            with self.lock:
                self.binds["stolen:" + ns + "/" + name] += 1
        conn, resp = self.upstream(h.command, target, body, h.headers)
        watch = "watch=true" in query or "watch=1" in query
        if watch and resp.status == 200:
            self.stream(h, resp, action)
        else:
            data = resp.read()
            if "inject" in action and resp.status == 200:
                data = action["inject"](data)
            self.reply(h, resp.status, data, {"Content-Type": resp.getheader("Content-Type")
                                               or "application/json"})
            self.note_bind(path, resp.status, upstream_ok=True)
        conn.close()

    def note_bind(self, path, status, upstream_ok):
        if not path.endswith("/binding"):
            return
        pod = path.split("/")[-4] + "/" + path.split("/")[-2]
        with self.lock:
            self.bind_answers.append((pod, status))
            if upstream_ok and status in (200, 201):
                self.binds[pod] += 1

    def reply(self, h, status, data, headers):
        h.send_response(status)
        for k, v in headers.items():
            if v:
                h.send_header(k, str(v))
        h.send_header("Content-Length", str(len(data)))
        h.end_headers()
        h.wfile.write(data)

    def stream(self, h, resp, action):
        h.send_response(200)
        h.send_header("Content-Type", "application/json")
        h.send_header("Transfer-Encoding", "chunked")
        h.end_headers()
        sent = 0
        try:
            while True:
                if action.get("cut_after") is not None and sent >= action["cut_after"]:
                    # Mid-stream, without the closing chunk.
                    h.wfile.flush()
                    h.connection.shutdown(2)
                    h.close_connection = True
                    return
                if action.get("gone_after") is not None and sent >= action["gone_after"]:
                    gone = json.dumps({"type": "ERROR", "object": {
                        "kind": "Status", "apiVersion": "v1", "status": "Failure", "code": 410,
                        "reason": "Expired", "message": "too old resource version"}}) + "\n"
                    self.chunk(h, gone.encode())
                    break
                line = resp.readline()
                if not line:
                    break
                if "inject_event" in action:
                    line = action["inject_event"](line)
                self.chunk(h, line)
                sent += 1
            h.wfile.write(b"0\r\n\r\n")
            h.wfile.flush()
        except (BrokenPipeError, ConnectionResetError, OSError):
            h.close_connection = True

    @staticmethod
    def chunk(h, data):
        h.wfile.write(b"%x\r\n" % len(data) + data + b"\r\n")
        h.wfile.flush()


def once(n, predicate, action):
    """A rule that applies `action` to the first `n` requests matching
    `predicate(method, path, query)`."""
    left = [n]
    lock = threading.Lock()

    def rule(method, path, query, body):
        if not predicate(method, path, query):
            return None
        with lock:
            if left[0] <= 0:
                return None
            left[0] -= 1
        return dict(action)
    return rule


def sometimes(fraction, seed, predicate, action, limit):
    """A rule that applies `action` to a seeded random `fraction` of the
    matching requests, at most `limit` times."""
    rng = random.Random(seed)
    left = [limit]
    lock = threading.Lock()

    def rule(method, path, query, body):
        if not predicate(method, path, query):
            return None
        with lock:
            if left[0] <= 0 or rng.random() >= fraction:
                return None
            left[0] -= 1
        return dict(action)
    return rule


def is_watch(resource):
    return lambda m, p, q: m == "GET" and p.endswith("/" + resource) and "watch=" in q


def is_list(resource):
    return lambda m, p, q: m == "GET" and p.endswith("/" + resource) and "watch=" not in q


def is_bind(pod=None):
    return lambda m, p, q: m == "POST" and p.endswith("/binding") and (
        pod is None or re.search("/pods/" + re.escape(pod) + "/binding$", p) is not None)
