import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import * as kubernetesModels from 'kubernetes-models';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IPodSpec } from 'kubernetes-models/v1/PodSpec';
import { parseAllDocuments } from 'yaml';

/** deploy/kubernetes: `base` and each folder of `overlays`, each a kustomization that must render. */
export const KUSTOMIZE_ROOT = join(__dirname, '..', '..', 'deploy', 'kubernetes');
export const KUSTOMIZATIONS = ['base', ...readdirSync(join(KUSTOMIZE_ROOT, 'overlays')).map((name) => `overlays/${name}`)];

export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  [field: string]: unknown;
}

/**
 * `kubectl kustomize <dir>`, every document parsed. Without kubectl this throws: the manifests
 * are only tested as Kubernetes would read them, never skipped.
 */
export function render(kustomization: string): Manifest[] {
  let output: string;
  try {
    output = execFileSync('kubectl', ['kustomize', join(KUSTOMIZE_ROOT, kustomization)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 });
  } catch (err) {
    const failure = err as NodeJS.ErrnoException & { stderr?: string };
    if (failure.code === 'ENOENT') {
      throw new Error('kubectl is not on the PATH: the manifests test renders deploy/kubernetes with `kubectl kustomize` (kubectl 1.27 or later; https://kubernetes.io/docs/tasks/tools/)');
    }
    throw new Error(`kubectl kustomize ${kustomization} failed: ${failure.stderr ?? failure.message}`);
  }
  return parseAllDocuments(output).map((document) => {
    if (document.errors.length > 0) throw new Error(`${kustomization}: ${document.errors[0]!.message}`);
    return document.toJS() as Manifest;
  });
}

type ModelClass = (new (data: object) => { validate(): void }) & { apiVersion: string; kind: string };

/** Every kind kubernetes-models knows, by `apiVersion/kind`: its classes validate against the Kubernetes OpenAPI schemas. */
const MODELS = new Map<string, ModelClass>();
(function collect(exports: object): void {
  for (const value of Object.values(exports)) {
    const model = value as Partial<ModelClass>;
    if (typeof value === 'function' && typeof model.apiVersion === 'string' && typeof model.kind === 'string') MODELS.set(`${model.apiVersion}/${model.kind}`, value as ModelClass);
    else if (value !== null && typeof value === 'object') collect(value as object);
  }
})(kubernetesModels);

/** Throws naming the document when Kubernetes has no such kind or the schema refuses it. */
export function validateManifest(manifest: Manifest): void {
  const model = MODELS.get(`${manifest.apiVersion}/${manifest.kind}`);
  if (!model) throw new Error(`${manifest.kind} ${manifest.metadata?.name}: no kind ${manifest.kind} in ${manifest.apiVersion}`);
  const { apiVersion: _apiVersion, kind: _kind, ...data } = manifest;
  new model(data).validate();
}

export interface PodTemplate {
  /** Its workload, and `Kind name` for failure messages. */
  workload: Manifest;
  owner: string;
  labels: Record<string, string>;
  spec: IPodSpec;
}

/** The pod templates of the workload kinds (a Job's and a CronJob's too). */
export function podTemplates(manifests: Manifest[]): PodTemplate[] {
  return manifests.flatMap((manifest) => {
    const spec = manifest.spec as { template?: PodTemplateSource; jobTemplate?: { spec: { template: PodTemplateSource } } } | undefined;
    const template = manifest.kind === 'CronJob' ? spec?.jobTemplate?.spec.template : spec?.template;
    if (!template) return [];
    return [{ workload: manifest, owner: `${manifest.kind} ${manifest.metadata.name}`, labels: template.metadata?.labels ?? {}, spec: template.spec }];
  });
}

interface PodTemplateSource {
  metadata?: { labels?: Record<string, string> };
  spec: IPodSpec;
}

/** Init containers first, then the pod's containers. */
export function containersOf(spec: IPodSpec): IContainer[] {
  return [...(spec.initContainers ?? []), ...spec.containers];
}

/** The container port a probe's or a Service's port names (a number, or a port's name). */
export function portNumber(container: IContainer, port: number | string | undefined): number | undefined {
  if (typeof port === 'number') return port;
  return container.ports?.find((p) => p.name === port)?.containerPort;
}

/** `true` when every pair of `selector` is among `labels`. */
export function selects(selector: Record<string, string> | undefined, labels: Record<string, string>): boolean {
  return selector !== undefined && Object.keys(selector).length > 0 && Object.entries(selector).every(([key, value]) => labels[key] === value);
}
