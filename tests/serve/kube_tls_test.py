#!/usr/bin/python3
"""The local API over TLS (--tls-cert-file, --tls-private-key-file), against
a real `scoria serve` and real clients: kubectl, the Python client and the
JavaScript client (@kubernetes/client-node, installed by
scripts/install-deps.sh) list, watch and create through it, trusting the
CA in their kubeconfig; plain HTTP and clients that do not trust the CA get
nothing. A rotated certificate is served to new connections; one that does
not load keeps the last good. A start with files that cannot be used stops,
naming the file.

Usage: kube_tls_test.py SCORIA_BINARY SOURCE_DIR WORK_DIR
"""
import json
import os
import shutil
import socket
import ssl
import subprocess
import sys
import unittest

from kubernetes import client, config

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_process import ScoriaServe, wait_for  # noqa: E402

SCORIA, SOURCE, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
CONFIG = os.path.join(SOURCE, "config/scheduler.toml")
JS_CLIENT = os.path.join(SOURCE, "tests/serve/js_client")

NODE = """
apiVersion: v1
kind: Node
metadata: {name: node-a}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
"""


def openssl(*args):
    subprocess.run(["openssl", *args], check=True, capture_output=True)


class Certificates:
    """A CA, and server certificates for 127.0.0.1 signed by it."""

    def __init__(self, directory):
        self.dir = directory
        shutil.rmtree(directory, ignore_errors=True)
        os.makedirs(directory)
        self.ca_key, self.ca = self.path("ca.key"), self.path("ca.pem")
        openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                "-nodes", "-keyout", self.ca_key, "-out", self.ca, "-days", "2",
                "-subj", "/CN=scoria-test-ca")
        self.serial = 100

    def path(self, name):
        return os.path.join(self.dir, name)

    def server(self, name, names="IP:127.0.0.1,DNS:localhost"):
        """Writes NAME.pem and NAME.key (a new key, a new serial) for
        `names`; returns (cert, key, serial)."""
        self.serial += 1
        cert, key, csr = self.path(name + ".pem"), self.path(name + ".key"), self.path(name + ".csr")
        ext = self.path(name + ".ext")
        with open(ext, "w") as f:
            f.write(f"subjectAltName={names}\n")
        openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", key, "-out", csr, "-subj", "/CN=127.0.0.1")
        openssl("x509", "-req", "-in", csr, "-CA", self.ca, "-CAkey", self.ca_key,
                "-set_serial", str(self.serial), "-days", "2", "-extfile", ext, "-out", cert)
        return cert, key, self.serial


def served_serial(port, ca):
    """The serial of the certificate a new connection to `port` is given."""
    context = ssl.create_default_context(cafile=ca)
    with socket.create_connection(("127.0.0.1", port), timeout=10) as raw:
        with context.wrap_socket(raw, server_hostname="127.0.0.1") as tls:
            return int(tls.getpeercert()["serialNumber"], 16)


class OverTls(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.certs = Certificates(os.path.join(WORK, "certs"))
        # The served files are copies, replaced by rename as cert-manager does.
        cert, key, cls.first_serial = cls.certs.server("first")
        cls.cert, cls.key = cls.certs.path("tls.crt"), cls.certs.path("tls.key")
        shutil.copy(cert, cls.cert)
        shutil.copy(key, cls.key)
        # Over HTTPS kubectl asks for credentials where the kubeconfig has
        # none: the service's token, as a deployment beyond loopback has.
        token = cls.certs.path("token")
        with open(token, "w") as f:
            f.write("tls-test-token\n")
        cls.s = ScoriaServe(SCORIA, WORK, "tls", CONFIG, "--tls-cert-file", cls.cert,
                            "--tls-private-key-file", cls.key, "--token-file", token,
                            ca=cls.certs.ca, token="tls-test-token")
        cls.s.kubectl("apply", "-f", "-", stdin=NODE)

    @classmethod
    def tearDownClass(cls):
        cls.s.stop()

    def test_1_kubectl_applies_gets_and_sees_the_bind(self):
        s = self.s
        self.assertIn("over TLS", s.text())
        s.kubectl("run", "kubectl-0", "--image=busybox", "--restart=Never",
                  "--overrides", json.dumps({"spec": {"containers": [
                      {"name": "kubectl-0", "image": "busybox",
                       "resources": {"requests": {"cpu": "1"}}}]}}))
        self.assertTrue(wait_for(lambda: json.loads(
            s.kubectl("get", "pod", "kubectl-0", "-o", "json").stdout)["spec"].get("nodeName")
            == "node-a"), s.text())
        self.assertEqual(s.get("/healthz")[0], 200)

    def test_2_the_python_client_lists_through_the_kubeconfig(self):
        api_client = config.new_client_from_config(self.s.kubeconfig())
        try:
            nodes = client.CoreV1Api(api_client).list_node().items
        finally:
            api_client.close()
        self.assertEqual([n.metadata.name for n in nodes], ["node-a"])

    def test_3_the_javascript_client_lists_watches_and_creates(self):
        self.assertTrue(os.path.isdir(os.path.join(JS_CLIENT, "node_modules")),
                        "tests/serve/js_client has no node_modules: run scripts/install-deps.sh")
        r = subprocess.run(["node", os.path.join(JS_CLIENT, "client_test.mjs"),
                            self.s.kubeconfig()], capture_output=True, text=True, timeout=90)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr + self.s.text())
        seen = json.loads(r.stdout.strip().splitlines()[-1])
        self.assertEqual(seen["bound"], "node-a")
        self.assertIn("ADDED js-0", seen["events"])
        self.assertIn("MODIFIED js-0", seen["events"])

    def test_3b_scoria_ctl_verifies_the_certificate(self):
        s = self.s
        base = [SCORIA, "ctl", "--server", s.url, "--token-file", self.certs.path("token")]
        r = subprocess.run(base + ["--certificate-authority", self.certs.ca, "get", "nodes"],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("node-a", r.stdout)
        # Without the CA, the system's CAs do not know the certificate.
        r = subprocess.run(base + ["get", "nodes"], capture_output=True, text=True, timeout=60)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("certificate verify failed", r.stderr)

    def test_4_plain_http_and_untrusting_clients_get_nothing(self):
        with socket.create_connection(("127.0.0.1", self.s.port), timeout=10) as raw:
            raw.sendall(b"GET /api/v1/pods HTTP/1.1\r\nHost: x\r\n\r\n")
            try:
                answer = raw.recv(4096)
            except ConnectionResetError:
                answer = b""
        self.assertNotIn(b"PodList", answer)
        self.assertFalse(answer.startswith(b"HTTP/1.1 200"))
        # A client that trusts only the system's CAs refuses the certificate.
        with self.assertRaises(ssl.SSLCertVerificationError):
            served_serial(self.s.port, None)

    def test_5_a_rotated_certificate_is_served_and_a_broken_one_is_not(self):
        s, certs = self.s, self.certs
        self.assertEqual(served_serial(s.port, certs.ca), self.first_serial)
        cert, key, serial = certs.server("second")
        for src, dst in ((cert, self.cert), (key, self.key)):
            shutil.copy(src, dst + ".new")
            os.replace(dst + ".new", dst)
        self.assertTrue(wait_for(lambda: served_serial(s.port, certs.ca) == serial), s.text())
        self.assertIn("serving the certificate read again", s.text())
        # A certificate that does not load (half written): the last good one
        # is still served, and the log says why.
        with open(self.cert + ".new", "w") as f:
            f.write("-----BEGIN CERTIFICATE-----\nnot a certificate\n")
        os.replace(self.cert + ".new", self.cert)
        self.assertEqual(served_serial(s.port, certs.ca), serial)
        self.assertTrue(wait_for(lambda: "cannot be used" in s.text()), s.text())
        self.assertEqual(s.kubectl("get", "nodes", "-o", "name").stdout.strip(), "node/node-a")


class ForAnotherName(unittest.TestCase):
    def test_scoria_ctl_refuses_a_certificate_for_another_name(self):
        certs = Certificates(os.path.join(WORK, "other-certs"))
        cert, key, _ = certs.server("other", names="DNS:other.example")
        s = ScoriaServe(SCORIA, WORK, "other-name", CONFIG, "--tls-cert-file", cert,
                        "--tls-private-key-file", key, ca=certs.ca)
        try:
            r = subprocess.run([SCORIA, "ctl", "--server", s.url, "--certificate-authority",
                                certs.ca, "get", "nodes"], capture_output=True, text=True,
                               timeout=60)
        finally:
            s.stop()
        self.assertNotEqual(r.returncode, 0, r.stdout)
        self.assertIn("certificate verify failed", r.stderr)


class StartRefused(unittest.TestCase):
    def start(self, *flags):
        r = subprocess.run([SCORIA, "serve", "--config", CONFIG, "--state-dir",
                            os.path.join(WORK, "refused-state"), "--port", "0", *flags],
                           capture_output=True, text=True, timeout=60)
        return r.returncode, r.stderr

    def test_files_that_cannot_be_used_stop_the_start_naming_them(self):
        certs = Certificates(os.path.join(WORK, "refused-certs"))
        cert, key, _ = certs.server("a")
        _, other_key, _ = certs.server("b")
        missing = certs.path("missing.key")
        code, err = self.start("--tls-cert-file", cert, "--tls-private-key-file", missing)
        self.assertEqual(code, 2, err)
        self.assertIn("--tls-private-key-file " + missing + ": cannot be used", err)
        code, err = self.start("--tls-cert-file", cert, "--tls-private-key-file", other_key)
        self.assertEqual(code, 2, err)
        self.assertIn("is not the key of " + cert, err)
        code, err = self.start("--tls-cert-file", cert)
        self.assertEqual(code, 2, err)
        self.assertIn("needs both --tls-cert-file and --tls-private-key-file", err)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)
