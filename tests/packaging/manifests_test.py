#!/usr/bin/env python3
"""Keeps the container and Kubernetes packaging honest without an engine or a
cluster: what they say is read and checked, and the scoria command lines they
run are started with the binary just built (paths moved into a temporary
directory) and must come up healthy.

    manifests_test.py container|kubernetes SCORIA SOURCE_DIR
"""
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import tempfile
import time


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def start_serve(scoria, args, tmp):
    """Runs `scoria <args>` and returns (process, port) once it listens."""
    # Appending: the child shares this file offset, and our seek to read
    # must not make it write over the start of the log.
    log = open(os.path.join(tmp, "serve.log"), "a+")
    proc = subprocess.Popen([scoria] + args, stderr=log, stdout=log)
    # Generous: a loaded test machine starts a process slowly.
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        log.seek(0)
        found = re.search(r"listening on [^:\s]+:(\d+)", log.read())
        if found:
            return proc, int(found.group(1))
        if proc.poll() is not None:
            log.seek(0)
            fail("scoria exited at start (%s):\n%s" % (" ".join(args), log.read()))
        time.sleep(0.05)
    proc.kill()
    proc.wait()
    log.seek(0)
    fail("scoria did not start listening within 60 s (%s):\n%s" % (" ".join(args), log.read()))


def stop(proc):
    proc.send_signal(signal.SIGTERM)
    if proc.wait(timeout=30) != 0:
        fail("scoria serve did not exit 0 on SIGTERM")


def expect_healthy(scoria, args, tmp, what):
    """Starts `scoria <args>`, asks it for its health, and stops it."""
    proc, port = start_serve(scoria, args, tmp)
    try:
        health = subprocess.run([scoria, "ctl", "--server", "http://127.0.0.1:%d" % port,
                                 "health"], capture_output=True)
        if health.returncode != 0:
            fail(what + " is not healthy")
    finally:
        stop(proc)


def remap(args, mapping):
    """Moves absolute paths of the image into the temporary directory and the
    listen port to an ephemeral one."""
    out = []
    for a in args:
        for old, new in mapping.items():
            a = a.replace(old, new)
        a = re.sub(r"(0\.0\.0\.0):\d+", r"\1:0", a)
        out.append(a)
    return out


def prepare(tmp, source, config_name):
    etc = os.path.join(tmp, "etc")
    os.makedirs(etc)
    conf = open(os.path.join(source, "config/examples/volcano-scheduler.conf.yaml")).read()
    toml = open(os.path.join(source, "config/scheduler.toml")).read()
    open(os.path.join(etc, "scheduler.toml"), "w").write(toml)
    open(os.path.join(etc, config_name), "w").write(conf)
    secrets = os.path.join(tmp, "secrets")
    os.makedirs(secrets)
    open(os.path.join(secrets, "token"), "w").write("test-token\n")
    plugins = os.path.join(tmp, "plugins-extra")
    os.makedirs(plugins, mode=0o755)
    return {"/etc/scoria": etc, "/var/lib/scoria": os.path.join(tmp, "state"),
            "/run/secrets/scoria": secrets, "/usr/lib/scoria/plugins-extra": plugins}


def instructions(path):
    """The Containerfile's instructions, continuation lines joined."""
    text = open(path).read().replace("\\\n", " ")
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            out.append((word.upper(), rest.strip()))
    return out


def container(scoria, source):
    steps = instructions(os.path.join(source, "packaging/container/Containerfile"))
    froms = [rest for word, rest in steps if word == "FROM"]
    if len(froms) != 2 or not froms[0].startswith("debian:bookworm ") or \
            froms[1] != "debian:bookworm-slim":
        fail("expected two stages, debian:bookworm then debian:bookworm-slim: %s" % froms)
    build_runs = " ".join(rest for word, rest in steps[:steps.index(("FROM", froms[1]))]
                          if word == "RUN")
    # The same scripts CI runs (scripts/test.sh calls these two).
    for script in ("scripts/install-deps.sh", "scripts/build.sh"):
        if script not in build_runs:
            fail("the build stage does not run " + script)
        if script not in open(os.path.join(source, "scripts/test.sh")).read():
            fail(script + " is not what CI runs")
    # `COPY . .` takes the repository: what a local build made must stay out.
    ignored = [line.strip() for line in open(os.path.join(source, ".containerignore"))
               if line.strip() and not line.startswith("#")]
    for pattern in ("build", "build-*", ".git"):
        if pattern not in ignored:
            fail(".containerignore does not leave out " + pattern)
    if os.path.realpath(os.path.join(source, ".dockerignore")) != \
            os.path.realpath(os.path.join(source, ".containerignore")):
        fail(".dockerignore is not .containerignore")
    users = [rest for word, rest in steps if word == "USER"]
    if not users or users[-1].split(":")[0] in ("root", "0"):
        fail("the image must run as a non-root user, USER is %s" % users)
    volumes = json.loads(next(rest for word, rest in steps if word == "VOLUME"))
    for mount in ("/etc/scoria", "/var/lib/scoria", "/usr/lib/scoria/plugins-extra"):
        if mount not in volumes:
            fail("no volume for " + mount)
    exposed = next(rest for word, rest in steps if word == "EXPOSE")
    health = next(rest for word, rest in steps if word == "HEALTHCHECK")
    health_cmd = json.loads(health[health.index("CMD") + 3:].strip())
    entry = json.loads(next(rest for word, rest in steps if word == "ENTRYPOINT"))
    cmd = json.loads(next(rest for word, rest in steps if word == "CMD"))
    if "0.0.0.0:" + exposed not in " ".join(cmd):
        fail("CMD does not listen on the exposed port " + exposed)
    if "http://127.0.0.1:" + exposed not in " ".join(health_cmd) or "health" not in health_cmd:
        fail("the health check does not ask /healthz on port " + exposed)

    with tempfile.TemporaryDirectory() as tmp:
        mapping = prepare(tmp, source, "volcano-scheduler.conf")
        args = remap(entry[1:] + cmd, mapping)
        proc, port = start_serve(scoria, args, tmp)
        try:
            check = [scoria] + [a.replace(":" + exposed, ":%d" % port) for a in health_cmd[1:]]
            if subprocess.run(check, capture_output=True).returncode != 0:
                fail("the health check command fails against the running service")
        finally:
            stop(proc)
    print("container: ok")


def load_in_order(folder, defined=()):
    """The objects of a folder's YAML files in `kubectl apply -f` order (by
    file name); each namespaced object's namespace must be one of `defined`
    or created by an earlier file."""
    import yaml
    namespaces = set(defined)
    objects = []
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".yaml"):
            continue
        with open(os.path.join(folder, name)) as f:
            here = [d for d in yaml.safe_load_all(f) if d]
        for o in here:
            ns = o.get("metadata", {}).get("namespace")
            if ns and ns not in namespaces:
                fail("%s: %s %s is in namespace %s, which no earlier file creates"
                     % (name, o.get("kind"), o["metadata"].get("name"), ns))
        namespaces |= {o["metadata"]["name"] for o in here if o.get("kind") == "Namespace"}
        objects += here
    return objects, namespaces


def check_service(service, deployment):
    """The Service selects the Deployment's pods and reaches its named port."""
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    if any(labels.get(k) != v for k, v in service["spec"]["selector"].items()):
        fail("Service %s does not select the pods of Deployment %s"
             % (service["metadata"]["name"], deployment["metadata"]["name"]))
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    named = {p["name"] for p in container["ports"]}
    if service["spec"]["ports"][0]["targetPort"] not in named:
        fail("Service %s targets a port the container does not name" %
             service["metadata"]["name"])
    if service["metadata"].get("annotations", {}).get("prometheus.io/path") != "/metrics":
        fail("Service %s does not say where the metrics are" % service["metadata"]["name"])


def kubernetes(scoria, source):
    import yaml
    folder = os.path.join(source, "packaging/kubernetes")
    objects, namespaces = load_in_order(folder)
    by_kind = {}
    for o in objects:
        for field in ("apiVersion", "kind", "metadata"):
            if field not in o:
                fail("an object lacks %s: %s" % (field, o))
        by_kind.setdefault(o["kind"], []).append(o)
    for kind in ("Namespace", "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role",
                 "RoleBinding", "ConfigMap", "Deployment", "Service"):
        if kind not in by_kind:
            fail("no " + kind)

    # Which verbs: tests/serve/kube_source_test.py compares the rules with
    # the requests the Kubernetes source makes. Here: the lease is granted
    # where the Deployment elects its leader.
    election_ns = by_kind["Role"][0]["metadata"]["namespace"]
    if not any(r["resources"] == ["leases"] for r in by_kind["Role"][0]["rules"]):
        fail("the Role does not grant the Lease")

    account = by_kind["ServiceAccount"][0]["metadata"]["name"]
    for binding in by_kind["ClusterRoleBinding"] + by_kind["RoleBinding"]:
        if binding["subjects"][0]["name"] != account:
            fail("a binding names another service account")

    config_map = by_kind["ConfigMap"][0]
    conf = config_map["data"]["volcano-scheduler.conf"]
    expected = yaml.safe_load(open(os.path.join(source,
                                                "config/examples/volcano-scheduler.conf.yaml")))
    if yaml.safe_load(conf) != expected:
        fail("the ConfigMap's scheduler config differs from "
             "config/examples/volcano-scheduler.conf.yaml")

    deployment = by_kind["Deployment"][0]
    pod = deployment["spec"]["template"]["spec"]
    if pod["serviceAccountName"] != account:
        fail("the Deployment runs as another service account")
    container = pod["containers"][0]
    if container["livenessProbe"]["httpGet"]["path"] != "/healthz" or \
            container["readinessProbe"]["httpGet"]["path"] != "/readyz":
        fail("probes must ask /healthz and /readyz")
    if "--leader-elect" not in container["args"]:
        fail("the Deployment does not ask for leader election")
    if "--leader-elect-resource-namespace=" + election_ns not in container["args"]:
        fail("the Deployment elects its leader outside the Role's namespace")
    if deployment["spec"]["replicas"] < 2:
        fail("with leader election, run a standby: replicas 2")
    if not pod.get("securityContext", {}).get("runAsNonRoot"):
        fail("the pod must run as non-root")
    mounts = {m["mountPath"]: m["name"] for m in container["volumeMounts"]}
    volumes = {v["name"]: v for v in pod["volumes"]}
    if volumes[mounts["/etc/scoria"]]["configMap"]["name"] != config_map["metadata"]["name"]:
        fail("/etc/scoria is not the scheduler ConfigMap")
    check_service(by_kind["Service"][0], deployment)

    # The local store as a cluster of its own: one replica (one writer per
    # store), its state on a PersistentVolumeClaim, a Service.
    local, _ = load_in_order(os.path.join(folder, "local-store"), namespaces)
    local_kinds = {}
    for o in local:
        local_kinds.setdefault(o["kind"], []).append(o)
    for kind in ("PersistentVolumeClaim", "Deployment", "Service"):
        if kind not in local_kinds:
            fail("local-store: no " + kind)
    store = local_kinds["Deployment"][0]
    store_pod = store["spec"]["template"]["spec"]
    if store["spec"]["replicas"] != 1 or store["spec"].get("strategy", {}).get("type") != "Recreate":
        fail("local-store: one writer per store: replicas 1, strategy Recreate")
    store_container = store_pod["containers"][0]
    store_mounts = {m["mountPath"]: m["name"] for m in store_container["volumeMounts"]}
    store_volumes = {v["name"]: v for v in store_pod["volumes"]}
    state_dir = [a.split("=", 1)[1] for a in store_container["args"]
                 if a.startswith("--state-dir=")][0]
    claim = store_volumes[store_mounts[state_dir]].get("persistentVolumeClaim", {})
    if claim.get("claimName") != local_kinds["PersistentVolumeClaim"][0]["metadata"]["name"]:
        fail("local-store: the state directory is not on the PersistentVolumeClaim")
    # In a pod serve's source defaults to the cluster: the store says local.
    if "--source=local" not in store_container["args"]:
        fail("local-store: the Deployment must say --source=local (in a pod the default is the "
             "cluster's API server)")
    check_service(local_kinds["Service"][0], store)

    # The container's arguments start a healthy service, against an API
    # server (a local scoria serve) given by --master instead of in-cluster.
    with tempfile.TemporaryDirectory() as tmp:
        mapping = prepare(tmp, source, "volcano-scheduler.conf")
        api_dir = os.path.join(tmp, "apiserver")
        os.makedirs(api_dir)
        api, api_port = start_serve(scoria, ["serve", "--config",
                                             os.path.join(source, "config/scheduler.toml"),
                                             "--state-dir", api_dir, "--port", "0"], api_dir)
        args = remap([a for a in container["args"]], mapping)
        args += ["--master", "http://127.0.0.1:%d" % api_port]
        try:
            expect_healthy(scoria, args, tmp, "the Deployment's service")
        finally:
            stop(api)
    with tempfile.TemporaryDirectory() as tmp:
        mapping = prepare(tmp, source, "volcano-scheduler.conf")
        mapping["/var/lib/scoria"] = os.path.join(tmp, "store")
        expect_healthy(scoria, remap(store_container["args"], mapping), tmp,
                       "the local-store Deployment's service")
        if not os.path.exists(os.path.join(tmp, "store", "store.db")):
            fail("the local-store Deployment did not write its store to the state directory")
    print("kubernetes: ok")


if __name__ == "__main__":
    what, scoria, source = sys.argv[1:4]
    {"container": container, "kubernetes": kubernetes}[what](scoria, source)
