import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import type { IJob } from 'kubernetes-models/batch/v1/Job';
import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IPodSpec } from 'kubernetes-models/v1/PodSpec';
import type { IService } from 'kubernetes-models/v1/Service';
import type { Manifest } from './yaml-files.js';

/** Typed views over parsed (and validated) manifests. */

export type Workload = IDeployment | IStatefulSet | IJob;

export const WORKLOAD_KINDS = new Set(['Deployment', 'StatefulSet', 'Job']);

export const nameOf = (manifest: { metadata?: { name?: string } }): string => manifest.metadata?.name ?? '?';

export const ofKind = <T>(objects: Manifest[], kind: string): T[] => objects.filter((object) => object.kind === kind) as unknown as T[];

export function find<T>(objects: Manifest[], kind: string, name: string): T {
  const found = objects.find((object) => object.kind === kind && object.metadata.name === name);
  if (!found) throw new Error(`no ${kind} named ${name}`);
  return found as unknown as T;
}

export const workloads = (objects: Manifest[]): Workload[] =>
  objects.filter((object) => WORKLOAD_KINDS.has(object.kind)) as unknown as Workload[];

export function podSpecOf(workload: Workload): IPodSpec {
  const spec = workload.spec?.template.spec;
  if (!spec) throw new Error(`${workload.kind} ${nameOf(workload)} has no pod spec`);
  return spec;
}

export const containersOf = (workload: Workload): IContainer[] => [
  ...(podSpecOf(workload).initContainers ?? []),
  ...podSpecOf(workload).containers,
];

export const podLabelsOf = (workload: Workload): Record<string, string> => workload.spec?.template.metadata?.labels ?? {};

export const configMapData = (objects: Manifest[], name: string): Record<string, string> =>
  find<IConfigMap>(objects, 'ConfigMap', name).data ?? {};

/** Does the Service select these pod labels? */
export const selects = (service: IService, labels: Record<string, string>): boolean =>
  Object.entries(service.spec?.selector ?? {}).every(([key, value]) => labels[key] === value);

/** Hosts and options of a mongodb:// URL (no credentials expected). */
export function parseMongoUrl(url: string): { hosts: string[]; replicaSet: string | undefined } {
  const match = /^mongodb:\/\/([^/?]+)\/?(?:\?(.*))?$/.exec(url);
  if (!match?.[1]) throw new Error(`cannot parse MONGO_URL ${url}`);
  return { hosts: match[1].split(','), replicaSet: new URLSearchParams(match[2] ?? '').get('replicaSet') ?? undefined };
}

/** Kubernetes quantities: memory in MiB, CPU in cores. */
export function mebibytes(quantity: string | number | undefined): number {
  if (quantity === undefined) return Number.NaN;
  const match = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|M|G)?$/.exec(String(quantity));
  if (!match?.[1]) return Number.NaN;
  const value = Number(match[1]);
  const factor: Record<string, number> = { Ki: 1 / 1024, Mi: 1, Gi: 1024, M: 1e6 / 2 ** 20, G: 1e9 / 2 ** 20 };
  return match[2] ? value * (factor[match[2]] ?? Number.NaN) : value / 2 ** 20;
}

export function cores(quantity: string | number | undefined): number {
  if (quantity === undefined) return Number.NaN;
  const text = String(quantity);
  return text.endsWith('m') ? Number(text.slice(0, -1)) / 1000 : Number(text);
}
