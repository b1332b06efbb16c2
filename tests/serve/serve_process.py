"""`scoria serve` as a real process on an ephemeral loopback port, for the
Python service tests."""
import base64
import json
import os
import re
import shutil
import ssl
import subprocess
import threading
import time
import urllib.request


class ScoriaServe:
    def __init__(self, scoria, work, name, config, *extra, ca=None, token=None):
        """`ca`: the CA (a PEM file) of the certificate served with
        --tls-cert-file in `extra`: the service is then reached over HTTPS,
        its kubeconfig trusting that CA. `token`: the bearer token its
        kubeconfig sends (the one given with --token-file)."""
        self.dir = os.path.join(work, name)
        shutil.rmtree(self.dir, ignore_errors=True)
        os.makedirs(self.dir)
        self.log_path = os.path.join(self.dir, "serve.log")
        self.log = open(self.log_path, "w+")
        self.proc = subprocess.Popen(
            [scoria, "serve", "--config", config, "--state-dir", os.path.join(self.dir, "state"),
             "--port", "0", "--schedule-period", "100", *extra],
            stdout=self.log, stderr=subprocess.STDOUT)
        self.port = None
        for _ in range(400):
            m = re.search(r"listening on 127\.0\.0\.1:(\d+)", self.text())
            if m:
                self.port = int(m.group(1))
                break
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        if self.port is None:
            self.stop()
            raise RuntimeError("scoria serve did not start:\n" + self.text())
        self.ca = ca
        self.token = token
        self.url = f"{'https' if ca else 'http'}://127.0.0.1:{self.port}"

    def kubeconfig(self):
        """A kubeconfig for this service (written on first use), namespace
        default."""
        path = os.path.join(self.dir, "kubeconfig")
        if not os.path.exists(path):
            with open(path, "w") as f:
                cluster = {"server": self.url}
                if self.ca:
                    with open(self.ca, "rb") as pem:
                        cluster["certificate-authority-data"] = base64.b64encode(
                            pem.read()).decode()
                json.dump({"apiVersion": "v1", "kind": "Config",
                           "clusters": [{"name": "s", "cluster": cluster}],
                           "users": [{"name": "u",
                                      "user": {"token": self.token} if self.token else {}}],
                           "contexts": [{"name": "c", "context": {"cluster": "s", "user": "u",
                                                                  "namespace": "default"}}],
                           "current-context": "c"}, f)
        return path

    def kubectl(self, *args, stdin=None, check=True):
        """Real kubectl against this service; AssertionError with its output
        when it fails and `check` is set."""
        r = subprocess.run(["kubectl", "--kubeconfig", self.kubeconfig(), *args], input=stdin,
                           capture_output=True, text=True, timeout=60)
        if check and r.returncode != 0:
            raise AssertionError(f"kubectl {' '.join(args)} failed:\n{r.stdout}{r.stderr}")
        return r

    def text(self):
        with open(self.log_path) as f:
            return f.read()

    def get(self, path):
        """(status, body) of a GET to the service."""
        context = ssl.create_default_context(cafile=self.ca) if self.ca else None
        try:
            with urllib.request.urlopen(self.url + path, timeout=10, context=context) as r:
                return r.status, r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode()

    def metric(self, name):
        """The value of the first sample of metric `name` (a full sample
        name with labels, or a prefix), or None."""
        _, text = self.get("/metrics")
        for line in text.splitlines():
            if line.startswith(name):
                return float(line.rsplit(" ", 1)[1])
        return None

    def kill(self):
        self.proc.kill()
        self.proc.wait()
        self.log.close()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if not self.log.closed:
            self.log.close()


def wait_for(predicate, seconds=20):
    deadline = time.time() + seconds
    while time.time() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    return None


def read_words_until(process, done, seconds=20):
    """Reads `process`'s output a line at a time, each split into words,
    until done(lines) holds or `seconds` pass, then ends the process (a
    `kubectl get -w`, say). Returns the lines read."""
    lines = []

    def read():
        for line in process.stdout:
            lines.append(line.split())
            if done(lines):
                return
    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(seconds)
    process.kill()
    process.wait()
    process.stdout.close()
    return lines
