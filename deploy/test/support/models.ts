import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { StatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { Ingress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { PersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';
import type { Manifest } from './yaml-files.js';

interface Validatable {
  validate(): void;
}

/** The kinds the manifests use, by `apiVersion/kind`; another kind needs a line here. */
const MODELS: Record<string, (data: Manifest) => Validatable> = {
  'v1/Namespace': (data) => new Namespace(data as never),
  'v1/ConfigMap': (data) => new ConfigMap(data as never),
  'v1/Secret': (data) => new Secret(data as never),
  'v1/Service': (data) => new Service(data as never),
  'v1/PersistentVolumeClaim': (data) => new PersistentVolumeClaim(data as never),
  'apps/v1/Deployment': (data) => new Deployment(data as never),
  'apps/v1/StatefulSet': (data) => new StatefulSet(data as never),
  'batch/v1/Job': (data) => new Job(data as never),
  'policy/v1/PodDisruptionBudget': (data) => new PodDisruptionBudget(data as never),
  'networking.k8s.io/v1/Ingress': (data) => new Ingress(data as never),
  'networking.k8s.io/v1/NetworkPolicy': (data) => new NetworkPolicy(data as never),
  'autoscaling/v2/HorizontalPodAutoscaler': (data) => new HorizontalPodAutoscaler(data as never),
};

/**
 * Validates against the Kubernetes 1.27 schemas bundled with kubernetes-models (types, required
 * fields, enums; unknown fields are not reported). Throws with the object's identity.
 */
export function validateManifest(manifest: Manifest): void {
  const key = `${manifest.apiVersion}/${manifest.kind}`;
  const model = MODELS[key];
  if (!model) throw new Error(`no kubernetes-models class registered for ${key} (${manifest.metadata.name})`);
  try {
    model(manifest).validate();
  } catch (error) {
    throw new Error(`${key} ${manifest.metadata.name}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
