// The JavaScript Kubernetes client (@kubernetes/client-node) against a real
// `scoria serve` over TLS, as tests/serve/kube_tls_test.py starts it: lists
// the pods, watches them, creates one, and sees it bound by the scheduler.
// Prints one JSON line of what it saw; exits 1 naming what failed.
//
// Usage: node client_test.mjs KUBECONFIG
import * as k8s from '@kubernetes/client-node';

const fail = (what) => {
  console.error(`client_test: ${what}`);
  process.exit(1);
};

const kc = new k8s.KubeConfig();
kc.loadFromFile(process.argv[2]);
const core = kc.makeApiClient(k8s.CoreV1Api);

const listed = await core.listNamespacedPod({ namespace: 'default' });
const before = listed.items.map((p) => p.metadata.name);

const events = [];
let bound = null;
const done = new Promise((resolve) => {
  new k8s.Watch(kc)
    .watch('/api/v1/namespaces/default/pods', { resourceVersion: listed.metadata.resourceVersion },
      (type, pod) => {
        events.push(`${type} ${pod.metadata.name}`);
        if (pod.metadata.name === 'js-0' && pod.spec.nodeName) {
          bound = pod.spec.nodeName;
          resolve();
        }
      },
      (err) => { if (err && !bound) fail(`the watch ended: ${err}`); })
    .then((req) => { done.abort = () => req.abort(); });
});

const created = await core.createNamespacedPod({
  namespace: 'default',
  body: {
    metadata: { name: 'js-0' },
    spec: { containers: [{ name: 'c', image: 'busybox', resources: { requests: { cpu: '1' } } }] },
  },
});
if (created.metadata.name !== 'js-0') fail(`created ${JSON.stringify(created.metadata)}`);

const timer = setTimeout(() => fail(`js-0 not bound within 30s; saw ${events.join(', ')}`), 30000);
await done;
clearTimeout(timer);
if (done.abort) done.abort();
console.log(JSON.stringify({ before, events, bound }));
process.exit(0);
