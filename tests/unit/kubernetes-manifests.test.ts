import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IPodSpec } from 'kubernetes-models/v1/PodSpec';
import type { IProbe } from 'kubernetes-models/v1/Probe';
import { loadConfig } from '../../src/config';
import { KUSTOMIZATIONS, containersOf, podTemplates, portNumber, render, selects, validateManifest, type Manifest, type PodTemplate } from '../helpers/kubernetes-manifests';

/**
 * deploy/kubernetes as `kubectl kustomize` renders the base and every overlay: each document is a
 * kind of the Kubernetes API and valid against its schema (kubernetes-models; like the API server
 * without strict field validation, the schemas let an unknown field through, so the settings
 * that matter are checked by name below), and the settings docs/operating.md promises are there.
 */

const SECRET_NAME = 'workspace-api-secrets';
const DEFAULTS = loadConfig({});

describe('the manifests check', () => {
  it('refuses a kind Kubernetes does not have and a document its schema refuses', () => {
    const deployment = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'x' } };
    const template = { spec: { containers: [{ name: 'api', image: 'workspace-api:1' }] } };

    expect(() => validateManifest({ ...deployment, spec: { selector: {}, template } })).not.toThrow();
    expect(() => validateManifest({ ...deployment, kind: 'Deploymnet' })).toThrow('no kind Deploymnet in apps/v1');
    expect(() => validateManifest({ ...deployment, spec: { replicas: 'two', selector: {}, template } })).toThrow('replicas must be integer');
    expect(() => validateManifest({ ...deployment, spec: { selector: {}, template: { spec: { containers: [{ image: 'x' }] } } } })).toThrow('containers/0 must have required property name');
  });
});

describe.each(KUSTOMIZATIONS)('deploy/kubernetes/%s', (kustomization) => {
  const manifests = render(kustomization);
  const templates = podTemplates(manifests);
  const byKind = (kind: string) => manifests.filter((m) => m.kind === kind);
  const component = (name: string): PodTemplate => {
    const found = templates.find((t) => t.labels['app.kubernetes.io/component'] === name);
    if (!found) throw new Error(`no pod template with app.kubernetes.io/component: ${name}`);
    return found;
  };
  const api = component('api');
  const worker = component('worker');
  const apiContainer = api.spec.containers.find((c) => c.name === 'api')!;
  const workerContainer = worker.spec.containers.find((c) => c.name === 'worker')!;
  const apiDeployment = api.workload;
  const hpa = byKind('HorizontalPodAutoscaler').find((h) => (h.spec as { scaleTargetRef: { name: string } }).scaleTargetRef.name === apiDeployment.metadata.name);
  const fewestApiPods = hpa ? (hpa.spec as { minReplicas: number }).minReplicas : (apiDeployment.spec as { replicas: number }).replicas;

  it('holds only kinds of the Kubernetes API, each valid against its schema', () => {
    for (const manifest of manifests) validateManifest(manifest);
    expect(manifests.map((m) => m.kind)).toEqual(expect.arrayContaining(['ConfigMap', 'Deployment', 'Service', 'PodDisruptionBudget']));
  });

  it('labels every object as part of workspace-api, and every pod by name and component', () => {
    for (const manifest of manifests) expect([manifest.metadata.name, manifest.metadata.labels?.['app.kubernetes.io/part-of']]).toEqual([manifest.metadata.name, 'workspace-api']);
    for (const template of templates) expect(template.labels).toMatchObject({ 'app.kubernetes.io/name': 'workspace-api', 'app.kubernetes.io/component': expect.any(String) });
  });

  it('runs the API with startup and liveness probes on /healthz and readiness on /readyz, at port 3000', () => {
    expect(portNumber(apiContainer, apiContainer.ports?.[0]?.name)).toBe(3000);
    expect(httpProbe(apiContainer, apiContainer.startupProbe)).toEqual({ path: '/healthz', port: 3000 });
    expect(httpProbe(apiContainer, apiContainer.livenessProbe)).toEqual({ path: '/healthz', port: 3000 });
    expect(httpProbe(apiContainer, apiContainer.readinessProbe)).toEqual({ path: '/readyz', port: 3000 });
    // /readyz gives up on the database after 2 s and answers 503: the probe must wait longer than that.
    expect(apiContainer.readinessProbe!.timeoutSeconds).toBeGreaterThan(2);
  });

  it('pauses the API before SIGTERM and gives it longer than the pause and the drain together', () => {
    const command = apiContainer.lifecycle?.preStop?.exec?.command ?? [];
    expect(command[0]).toBe('sleep');
    const pauseSeconds = Number(command[1]);
    expect(pauseSeconds).toBeGreaterThanOrEqual(3);
    const drainMs = Number(settingOf(apiContainer, 'SHUTDOWN_TIMEOUT_MS') ?? DEFAULTS.SHUTDOWN_TIMEOUT_MS);
    expect(api.spec.terminationGracePeriodSeconds).toBeGreaterThan(pauseSeconds + drainMs / 1000);
  });

  it('runs the worker as its own Deployment, probed on its health port, with time to finish a delivery', () => {
    expect(workerContainer.command).toEqual(['node', 'dist/src/webhooks/worker-main.js']);
    const port = httpProbe(workerContainer, workerContainer.livenessProbe);
    expect(port).toEqual({ path: '/healthz', port: Number(settingOf(workerContainer, 'WORKER_HEALTH_PORT') ?? 3001) });
    const deliveryMs = Number(settingOf(workerContainer, 'WEBHOOK_TIMEOUT_MS') ?? DEFAULTS.WEBHOOK_TIMEOUT_MS);
    expect(worker.spec.terminationGracePeriodSeconds).toBeGreaterThan(deliveryMs / 1000 + 2);
  });

  it('applies migrations before the API or the worker starts, with the same image', () => {
    for (const template of [api, worker]) {
      const [migrate, ...rest] = template.spec.initContainers ?? [];
      expect([template.owner, migrate?.command, rest]).toEqual([template.owner, ['workspace-api', 'migrate'], []]);
      expect(migrate!.image).toBe(template.spec.containers[0]!.image);
    }
  });

  it('hardens every container of every pod: non-root, read-only root, no privilege escalation, no capabilities, seccomp RuntimeDefault', () => {
    for (const template of templates) {
      expect([template.owner, template.spec.automountServiceAccountToken]).toEqual([template.owner, false]);
      for (const container of containersOf(template.spec)) {
        const where = `${template.owner} ${container.name}`;
        expect({ where, ...effectiveSecurity(template.spec, container) }).toEqual(hardened(where));
      }
    }
  });

  it('sets CPU and memory requests and a memory limit on every container', () => {
    for (const template of templates) {
      for (const container of containersOf(template.spec)) {
        expect([template.owner, container.name, container.resources]).toEqual([
          template.owner, container.name,
          expect.objectContaining({ requests: expect.objectContaining({ cpu: expect.anything(), memory: expect.anything() }), limits: expect.objectContaining({ memory: expect.anything() }) }),
        ]);
      }
    }
  });

  it('runs one image in every container, at a tag or digest other than latest', () => {
    const images = new Set(templates.flatMap((t) => containersOf(t.spec).map((c) => c.image)));
    expect(images.size).toBe(1);
    const [image] = [...images];
    expect(image).toMatch(/(:[\w][\w.-]*|@sha256:[0-9a-f]{64})$/);
    expect(image).not.toMatch(/:latest$/);
  });

  it('takes secrets from the Secret created in the cluster, and holds no Secret itself', () => {
    expect(byKind('Secret')).toEqual([]);
    for (const container of [apiContainer, workerContainer]) {
      expect(container.envFrom).toContainEqual({ secretRef: { name: SECRET_NAME } });
      expect(configMapsOf(container).length).toBeGreaterThan(0);
    }
  });

  it('gives the service only settings it accepts (unknown names would be ignored)', () => {
    for (const configMap of byKind('ConfigMap')) {
      const data = configMap.data as Record<string, string>;
      const config = loadConfig({ ...data, DATABASE_URL: 'postgres://user@db:5432/workspace' });
      expect(Object.keys(data).filter((name) => !(name in config))).toEqual([]);
      expect(data.NODE_ENV).toBe('production');
    }
  });

  it('sends the Service to the API pods\' http port', () => {
    const [service] = byKind('Service').map((s) => s.spec as { selector: Record<string, string>; ports: { targetPort: string | number }[] });
    expect(selects(service!.selector, api.labels) && !selects(service!.selector, worker.labels)).toBe(true);
    expect(portNumber(apiContainer, service!.ports[0]!.targetPort)).toBe(3000);
  });

  it('keeps API pods through voluntary disruptions: the budget selects them and leaves one ready', () => {
    const [budget] = byKind('PodDisruptionBudget').map((p) => p.spec as { selector: { matchLabels: Record<string, string> }; maxUnavailable?: number; minAvailable?: number });
    expect(selects(budget!.selector.matchLabels, api.labels) && !selects(budget!.selector.matchLabels, worker.labels)).toBe(true);
    const alwaysUp = budget!.minAvailable ?? fewestApiPods - budget!.maxUnavailable!;
    expect(alwaysUp).toBeGreaterThanOrEqual(1);
    expect(alwaysUp).toBeLessThan(fewestApiPods);
  });

  it('leaves the replica count to the autoscaler where there is one (CPU, autoscaling/v2)', () => {
    for (const autoscaler of byKind('HorizontalPodAutoscaler')) expect(autoscaler).toBe(hpa);
    if (!hpa) return expect(apiDeployment.spec).toHaveProperty('replicas');
    expect(hpa.apiVersion).toBe('autoscaling/v2');
    expect(apiDeployment.spec).not.toHaveProperty('replicas');
    expect(hpa.spec).toMatchObject({ scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment' }, metrics: [{ type: 'Resource', resource: { name: 'cpu' } }] });
  });

  /** A setting of a container: its own env, else a ConfigMap it reads. */
  function settingOf(container: IContainer, name: string): string | undefined {
    const own = container.env?.find((e) => e.name === name)?.value;
    return own ?? configMapsOf(container).map((c) => (c.data as Record<string, string>)[name]).find((v) => v !== undefined);
  }

  function configMapsOf(container: IContainer): Manifest[] {
    const names = (container.envFrom ?? []).flatMap((e) => (e.configMapRef ? [e.configMapRef.name] : []));
    return names.map((name) => {
      const found = byKind('ConfigMap').find((c) => c.metadata.name === name);
      if (!found) throw new Error(`${container.name} reads ConfigMap ${name}, which the rendering lacks`);
      return found;
    });
  }
});

function httpProbe(container: IContainer, probe: IProbe | undefined): { path?: string; port?: number } | undefined {
  if (!probe?.httpGet) return undefined;
  return { path: probe.httpGet.path, port: portNumber(container, probe.httpGet.port) };
}

/** The container's settings where it has them, else the pod's (as the kubelet applies them). */
function effectiveSecurity(pod: IPodSpec, container: IContainer) {
  const own = container.securityContext ?? {};
  const shared = pod.securityContext ?? {};
  return {
    runAsNonRoot: own.runAsNonRoot ?? shared.runAsNonRoot,
    runAsUser: own.runAsUser ?? shared.runAsUser,
    readOnlyRootFilesystem: own.readOnlyRootFilesystem,
    allowPrivilegeEscalation: own.allowPrivilegeEscalation,
    capabilities: own.capabilities,
    seccompProfile: own.seccompProfile ?? shared.seccompProfile,
    privileged: own.privileged,
  };
}

/** What every container runs with; `where` names it in a failure. */
function hardened(where: string) {
  return {
    where,
    runAsNonRoot: true,
    // The image's `node` user.
    runAsUser: 1000,
    readOnlyRootFilesystem: true,
    allowPrivilegeEscalation: false,
    capabilities: { drop: ['ALL'] },
    seccompProfile: { type: 'RuntimeDefault' },
    privileged: undefined,
  };
}
