import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { parseTrustProxy } from '../../src/config/trust-proxy';
import { environmentVariableNames } from '../support/environment-variables';

const ROOT = join(__dirname, '..', '..');
const K8S = join(ROOT, 'deploy', 'k8s');

/** A Kubernetes object as parsed from YAML (only what the checks read is typed). */
interface K8sObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly labels?: Record<string, string> };
  readonly file: string;
  readonly [field: string]: unknown;
}

interface Probe {
  readonly httpGet?: { readonly path: string; readonly port: string | number };
}

interface Container {
  readonly name: string;
  readonly image: string;
  readonly ports?: readonly { readonly name?: string; readonly containerPort: number }[];
  readonly envFrom?: readonly { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  readonly resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  readonly securityContext?: Record<string, unknown> & { capabilities?: { drop?: string[] } };
  readonly livenessProbe?: Probe;
  readonly readinessProbe?: Probe;
  readonly startupProbe?: Probe;
  readonly volumeMounts?: readonly { name: string; mountPath: string }[];
}

interface PodSpec {
  readonly securityContext?: Record<string, unknown>;
  readonly containers: readonly Container[];
  readonly volumes?: readonly { name: string; emptyDir?: object }[];
}

interface DeploymentSpec {
  readonly replicas: number;
  readonly selector: { readonly matchLabels: Record<string, string> };
  readonly template: { readonly metadata: { readonly labels: Record<string, string> }; readonly spec: PodSpec };
}

function loadManifests(): K8sObject[] {
  const objects: K8sObject[] = [];
  for (const file of readdirSync(K8S).filter((f) => /\.ya?ml$/.test(f) && f !== 'kustomization.yaml')) {
    for (const document of parseAllDocuments(readFileSync(join(K8S, file), 'utf8'), { uniqueKeys: true })) {
      expect({ file, errors: document.errors.map((e) => e.message) }).toEqual({ file, errors: [] });
      const object = document.toJS() as Omit<K8sObject, 'file'> | null;
      if (object) objects.push({ ...object, file } as K8sObject);
    }
  }
  return objects;
}

const matches = (selector: Record<string, string>, labels: Record<string, string>): boolean =>
  Object.entries(selector).every(([key, value]) => labels[key] === value);

describe('deploy/k8s manifests', () => {
  const objects = loadManifests();
  const only = (kind: string): K8sObject => {
    const found = objects.filter((o) => o.kind === kind);
    expect({ kind, count: found.length }).toEqual({ kind, count: 1 });
    return found[0];
  };
  const deployment = only('Deployment');
  const spec = deployment.spec as DeploymentSpec;
  const pod = spec.template.spec;
  const container = pod.containers[0];
  const podLabels = spec.template.metadata.labels;

  it('match the Kubernetes schemas (scripts/validate-k8s.mjs, kubernetes-models)', () => {
    const run = spawnSync(process.execPath, [join(ROOT, 'scripts', 'validate-k8s.mjs')], { encoding: 'utf8' });

    expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
    expect(run.stdout).toMatch(/match the Kubernetes schemas/);
  });

  it('kustomization.yaml lists every manifest except the example Secret', () => {
    const kustomization = parseAllDocuments(readFileSync(join(K8S, 'kustomization.yaml'), 'utf8'))[0].toJS() as {
      resources: string[];
    };
    const files = [...new Set(objects.map((o) => o.file))].filter((f) => f !== 'secret.example.yaml').sort();

    expect([...kustomization.resources].sort()).toEqual(files);
  });

  it('Deployment: 2 replicas, one container, selector matching the pod labels', () => {
    expect(deployment.apiVersion).toBe('apps/v1');
    expect(spec.replicas).toBe(2);
    expect(pod.containers).toHaveLength(1);
    expect(matches(spec.selector.matchLabels, podLabels)).toBe(true);
  });

  it('Deployment: liveness and start-up probes on /health/live, readiness on /health/ready, on the served port', () => {
    const portNames = (container.ports ?? []).map((p) => p.name);
    expect(container.livenessProbe?.httpGet?.path).toBe('/health/live');
    expect(container.startupProbe?.httpGet?.path).toBe('/health/live');
    expect(container.readinessProbe?.httpGet?.path).toBe('/health/ready');
    for (const probe of [container.livenessProbe, container.readinessProbe, container.startupProbe]) {
      expect(portNames).toContain(probe?.httpGet?.port);
    }
    const config = only('ConfigMap').data as Record<string, string>;
    expect(container.ports?.[0].containerPort).toBe(Number(config.PORT));
    expect(config.HOST).toBe('0.0.0.0'); // the service's own default, 127.0.0.1, is out of the probes' reach
  });

  it('Deployment: resource requests and limits for CPU and memory', () => {
    expect(Object.keys(container.resources?.requests ?? {}).sort()).toEqual(['cpu', 'memory']);
    expect(Object.keys(container.resources?.limits ?? {}).sort()).toEqual(['cpu', 'memory']);
  });

  it('Deployment: non-root, read-only root filesystem, no privilege escalation, no capabilities', () => {
    expect(pod.securityContext?.runAsNonRoot).toBe(true);
    expect(pod.securityContext?.runAsUser).toBeGreaterThan(0);
    expect(container.securityContext?.readOnlyRootFilesystem).toBe(true);
    expect(container.securityContext?.allowPrivilegeEscalation).toBe(false);
    expect(container.securityContext?.capabilities?.drop).toEqual(['ALL']);
  });

  it('Deployment: /tmp is a writable emptyDir, since the root filesystem is read-only', () => {
    const mount = container.volumeMounts?.find((m) => m.mountPath === '/tmp');
    expect(mount).toBeDefined();
    expect(pod.volumes?.find((v) => v.name === mount?.name)?.emptyDir).toBeDefined();
  });

  it('Deployment: configuration from the ConfigMap and the Secret, which name only known variables', () => {
    const configMap = only('ConfigMap');
    const secret = only('Secret');
    expect(container.envFrom).toEqual([
      { configMapRef: { name: configMap.metadata.name } },
      { secretRef: { name: secret.metadata.name } },
    ]);
    const known = environmentVariableNames();
    const configKeys = Object.keys(configMap.data as object);
    const secretKeys = Object.keys(secret.stringData as object);
    expect(configKeys.filter((k) => !known.includes(k))).toEqual([]);
    expect(secretKeys.filter((k) => !known.includes(k))).toEqual([]);
    expect(secretKeys).toEqual(expect.arrayContaining(['DATABASE_URL', 'JWT_SECRET', 'CURSOR_SECRET']));
    expect(configKeys.filter((k) => secretKeys.includes(k))).toEqual([]);
    expect((configMap.data as Record<string, string>).NODE_ENV).toBe('production');
  });

  it('ConfigMap: X-Forwarded-For is believed from private peers (the Ingress) only, never from anyone', () => {
    const trustProxy = (only('ConfigMap').data as Record<string, string>).TRUST_PROXY;

    expect(parseTrustProxy(trustProxy)).toEqual(['loopback', 'uniquelocal']);
  });

  it('the grace period covers the preStop pause and the drain (SHUTDOWN_TIMEOUT_MS) with room to close', () => {
    const grace = (pod as PodSpec & { terminationGracePeriodSeconds?: number }).terminationGracePeriodSeconds ?? 30;
    const preStop = (
      container as Container & { lifecycle?: { preStop?: { exec?: { command: string[] } } } }
    ).lifecycle?.preStop?.exec?.command.join(' ');
    const pauseMs = Number(/setTimeout\([^,]+,\s*(\d+)\)/.exec(preStop ?? '')?.[1] ?? 0);
    const drainMs = Number((only('ConfigMap').data as Record<string, string>).SHUTDOWN_TIMEOUT_MS);

    expect(pauseMs).toBeGreaterThan(0);
    expect(drainMs).toBeGreaterThan(0);
    expect(grace * 1000).toBeGreaterThanOrEqual(pauseMs + drainMs + 5_000);
  });

  it('Service selects the pods and targets the named container port', () => {
    const service = only('Service').spec as { selector: Record<string, string>; ports: { targetPort: string }[] };
    expect(matches(service.selector, podLabels)).toBe(true);
    expect(container.ports?.map((p) => p.name)).toContain(service.ports[0].targetPort);
  });

  it('HorizontalPodAutoscaler (autoscaling/v2) scales the Deployment from 2 replicas on CPU', () => {
    const hpa = only('HorizontalPodAutoscaler');
    const hpaSpec = hpa.spec as {
      scaleTargetRef: { kind: string; name: string };
      minReplicas: number;
      maxReplicas: number;
      metrics: { resource?: { name: string } }[];
    };
    expect(hpa.apiVersion).toBe('autoscaling/v2');
    expect(hpaSpec.scaleTargetRef).toMatchObject({ kind: 'Deployment', name: deployment.metadata.name });
    expect(hpaSpec.minReplicas).toBe(spec.replicas);
    expect(hpaSpec.maxReplicas).toBeGreaterThan(hpaSpec.minReplicas);
    expect(hpaSpec.metrics.map((m) => m.resource?.name)).toContain('cpu');
  });

  it('PodDisruptionBudget keeps a replica of these pods available', () => {
    const pdb = only('PodDisruptionBudget');
    const pdbSpec = pdb.spec as { minAvailable: number; selector: { matchLabels: Record<string, string> } };
    expect(pdb.apiVersion).toBe('policy/v1');
    expect(pdbSpec.minAvailable).toBeGreaterThanOrEqual(1);
    expect(pdbSpec.minAvailable).toBeLessThan(spec.replicas);
    expect(matches(pdbSpec.selector.matchLabels, podLabels)).toBe(true);
  });
});
