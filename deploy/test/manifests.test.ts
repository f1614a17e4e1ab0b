// Validates deploy/k8s without a cluster or kubectl: every YAML file parses (duplicate keys are
// errors), every object validates against the Kubernetes 1.27 schemas of kubernetes-models, and
// the stack is wired the way the processes expect (environment, probes, Services, MongoDB, NATS),
// in base and in what each overlay renders (test/support/kustomize-lite.ts).
import { existsSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import type { IHorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import type { IJob } from 'kubernetes-models/batch/v1/Job';
import type { IIngress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import type { INetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import type { IPodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IProbe } from 'kubernetes-models/v1/Probe';
import type { ISecret } from 'kubernetes-models/v1/Secret';
import type { IService } from 'kubernetes-models/v1/Service';
import { describe, expect, it } from 'vitest';
import { ADDRESS_VARIABLES, ALL_ENV, ALLOWED_ENV, processOf, SERVICE_NAMES, type ProcessName } from './support/env.js';
import { KUSTOMIZATION_FILE, loadKustomization, referencedPaths, render, isKustomizationDir } from './support/kustomize-lite.js';
import { validateManifest } from './support/models.js';
import {
  configMapData,
  containersOf,
  cores,
  find,
  mebibytes,
  nameOf,
  ofKind,
  parseMongoUrl,
  podLabelsOf,
  podSpecOf,
  selects,
  workloads,
  type Workload,
} from './support/stack.js';
import { k8sDir, manifestsIn, parseYamlFile, rel, yamlFilesUnder, type Manifest } from './support/yaml-files.js';

const ENV_CONFIGMAP = 'masthead-env';
const GRPC_PORT = 50051;
const GATEWAY_PORT = 8080;
const METRICS_PORT = 9464;
const IMAGE = 'masthead';

const baseDir = join(k8sDir, 'base');
const overlayDirs = { dev: join(k8sDir, 'overlays', 'dev'), prod: join(k8sDir, 'overlays', 'prod') };
/** Manifests in base/ that are documented but deliberately not part of its kustomization. */
const OUT_OF_KUSTOMIZATION = ['admin-load-fixture.yaml'];

const yamlFiles = yamlFilesUnder(k8sDir);
const kustomizationDirs = yamlFiles.filter((file) => basename(file) === KUSTOMIZATION_FILE).map(dirname);
const kustomizations = kustomizationDirs.map(loadKustomization);
const patchFiles = new Set(kustomizations.flatMap((k) => k.patches.flatMap((patch) => (patch.path ? [resolve(k.dir, patch.path)] : []))));
const manifestFiles = yamlFiles.filter((file) => basename(file) !== KUSTOMIZATION_FILE && !patchFiles.has(file));
const fileObjects = manifestFiles.flatMap((file) => manifestsIn(file).map((manifest) => ({ file, manifest })));

const rendered: Record<'base' | 'dev' | 'prod', Manifest[]> = {
  base: render(baseDir),
  dev: render(overlayDirs.dev),
  prod: render(overlayDirs.prod),
};
const extras = OUT_OF_KUSTOMIZATION.flatMap((file) => manifestsIn(join(baseDir, file)));

const label = (manifest: Manifest): string => `${manifest.kind}/${manifest.metadata.name}`;
const imageName = (container: IContainer): string => (container.image ?? '').replace(/[:@].*$/, '');
const runsMasthead = (container: IContainer): boolean => imageName(container).split('/').pop() === IMAGE;

/** Each container of the Masthead image with the process its command selects. */
function mastheadContainers(objects: Manifest[]): { workload: Workload; container: IContainer; process: ProcessName | undefined }[] {
  return workloads(objects).flatMap((workload) =>
    containersOf(workload)
      .filter(runsMasthead)
      .map((container) => ({ workload, container, process: processOf([...(container.command ?? []), ...(container.args ?? [])]) })),
  );
}

/** Names a container gets: `env` entries plus every key of `envFrom` ConfigMaps and Secrets. */
function envNames(container: IContainer, objects: Manifest[]): string[] {
  const fromSources = (container.envFrom ?? []).flatMap((source) => {
    if (source.configMapRef)
      return Object.keys(configMapData(objects, source.configMapRef.name ?? '')).map((key) => `${source.prefix ?? ''}${key}`);
    if (source.secretRef) {
      const secret = objects.find((object) => object.kind === 'Secret' && object.metadata.name === source.secretRef?.name) as
        ISecret | undefined;
      return Object.keys({ ...(secret?.data ?? {}), ...(secret?.stringData ?? {}) }).map((key) => `${source.prefix ?? ''}${key}`);
    }
    return [];
  });
  return [...(container.env ?? []).map((variable) => variable.name), ...fromSources];
}

const envValue = (container: IContainer, objects: Manifest[], name: string): string | undefined => {
  const variable = (container.env ?? []).find((candidate) => candidate.name === name);
  if (variable?.value !== undefined) return variable.value;
  const key = variable?.valueFrom?.configMapKeyRef;
  if (key) return configMapData(objects, key.name ?? '')[key.key];
  for (const source of container.envFrom ?? []) {
    if (source.configMapRef) {
      const value = configMapData(objects, source.configMapRef.name ?? '')[name];
      if (value !== undefined) return value;
    }
  }
  return undefined;
};

const deployment = (objects: Manifest[], name: string): IDeployment => find<IDeployment>(objects, 'Deployment', name);
const mainContainer = (workload: Workload): IContainer => {
  const [first] = podSpecOf(workload).containers;
  if (!first) throw new Error(`${nameOf(workload)} has no container`);
  return first;
};

const expectGrpcProbe = (probe: IProbe | undefined, what: string): void => {
  expect(probe?.grpc, what).toBeDefined();
  expect(probe?.grpc?.port, what).toBe(GRPC_PORT);
};

/** `host:port` of a Service in `objects`? */
function resolvesToService(address: string, objects: Manifest[]): boolean {
  const [host, port] = address.split(':');
  return ofKind<IService>(objects, 'Service').some(
    (service) => nameOf(service) === host && (service.spec?.ports ?? []).some((candidate) => candidate.port === Number(port)),
  );
}

/** The nats.conf of the nats-config ConfigMap. */
const natsConf = (objects: Manifest[]): string => {
  const conf = configMapData(objects, 'nats-config')['nats.conf'];
  if (conf === undefined) throw new Error('nats-config has no nats.conf');
  return conf;
};

describe('YAML under deploy/k8s', () => {
  it('finds the base, both overlays and their manifests', () => {
    expect(kustomizationDirs.map((dir) => rel(dir)).sort()).toEqual([
      'deploy/k8s/base',
      'deploy/k8s/overlays/dev',
      'deploy/k8s/overlays/prod',
    ]);
    expect(manifestFiles.length).toBeGreaterThan(10);
  });

  it.each(yamlFiles.map((file) => [rel(file), file]))('%s parses (multi-document, no duplicate keys)', (_name, file) => {
    expect(parseYamlFile(file).length).toBeGreaterThan(0);
  });
});

describe('Kubernetes 1.27 schemas (kubernetes-models)', () => {
  it.each(fileObjects.map(({ file, manifest }) => [`${rel(file)} ${label(manifest)}`, manifest]))('%s validates', (_name, manifest) => {
    expect(() => validateManifest(manifest)).not.toThrow();
  });

  it.each(['dev', 'prod'] as const)('every object the %s overlay renders validates', (overlay) => {
    const problems: string[] = [];
    for (const manifest of rendered[overlay]) {
      try {
        validateManifest(manifest);
      } catch (error) {
        problems.push(error instanceof Error ? error.message : String(error));
      }
    }
    expect(problems).toEqual([]);
  });
});

describe('kustomizations', () => {
  it.each(kustomizations.map((k) => [rel(k.file), k]))('%s: every referenced file or directory exists', (_name, kustomization) => {
    const missing = referencedPaths(kustomization).filter((path) => !existsSync(path));
    expect(missing.map(rel)).toEqual([]);
    for (const resource of kustomization.resources) {
      const path = resolve(kustomization.dir, resource);
      if (!resource.endsWith('.yaml')) expect(isKustomizationDir(path), `${resource} is a kustomization directory`).toBe(true);
    }
  });

  it('base lists every manifest of its folder except the admin Job', () => {
    const base = loadKustomization(baseDir);
    const inFolder = manifestFiles.filter((file) => dirname(file) === baseDir).map((file) => basename(file));
    expect([...base.resources].sort()).toEqual(inFolder.filter((file) => !OUT_OF_KUSTOMIZATION.includes(file)).sort());
    for (const file of OUT_OF_KUSTOMIZATION) expect(base.resources).not.toContain(file);
  });

  it.each(Object.entries(overlayDirs))('overlay %s builds on base and its patches match objects of base', (_name, dir) => {
    const overlay = loadKustomization(dir);
    expect(overlay.resources.map((resource) => resolve(dir, resource))).toContain(baseDir);
    expect(overlay.namespace).toBe('masthead');
    // render() throws when a patch, replicas entry or resource matches nothing.
    expect(() => render(dir)).not.toThrow();
    for (const patch of overlay.patches) {
      const target =
        patch.target ??
        (patch.path ? manifestsIn(resolve(dir, patch.path)).map((m) => ({ kind: m.kind, name: m.metadata.name }))[0] : undefined);
      expect(target, `patch ${JSON.stringify(patch)}`).toBeDefined();
      expect(
        rendered.base.some((object) => object.kind === target?.kind && object.metadata.name === target.name),
        `${target?.kind}/${target?.name} exists in base`,
      ).toBe(true);
    }
  });

  it('base puts everything in the masthead namespace; the manifests outside it say so themselves', () => {
    expect(find<Manifest>(rendered.base, 'Namespace', 'masthead')).toBeDefined();
    for (const object of rendered.base.filter((candidate) => candidate.kind !== 'Namespace'))
      expect(object.metadata.namespace, label(object)).toBe('masthead');
    for (const object of extras) expect(object.metadata.namespace, label(object)).toBe('masthead');
  });

  it('every Masthead container uses masthead:latest in base; the image is set through kustomize images', () => {
    const containers = [...mastheadContainers(rendered.base), ...mastheadContainers(extras)];
    expect(containers.length).toBe(8);
    for (const { container } of containers) expect(container.image).toBe('masthead:latest');
    for (const dir of [baseDir, ...Object.values(overlayDirs)])
      expect(loadKustomization(dir).images.map((image) => image.name)).toContain(IMAGE);
    for (const { container } of mastheadContainers(rendered.prod)) expect(container.image).not.toBe('masthead:latest');
  });
});

describe('environment', () => {
  it.each(['base', 'dev', 'prod'] as const)('%s: every Deployment container gets only variables its process reads', (stack) => {
    const objects = rendered[stack];
    const deployments = mastheadContainers(objects).filter(({ workload }) => workload.kind === 'Deployment');
    expect(deployments.map(({ process }) => process).sort()).toEqual([...SERVICE_NAMES, 'gateway'].sort());
    for (const { workload, container, process } of deployments) {
      const names = envNames(container, objects);
      for (const name of names) {
        expect(ALL_ENV.has(name), `${nameOf(workload)}: ${name} is a Masthead variable`).toBe(true);
        expect(ALLOWED_ENV[process ?? 'gateway'].has(name), `${nameOf(workload)} (${process}) reads ${name}`).toBe(true);
      }
      expect(new Set(names).size, `${nameOf(workload)}: no variable set twice`).toBe(names.length);
    }
  });

  it('the admin Job gets only what the admin CLI reads', () => {
    const [admin, ...others] = mastheadContainers(extras);
    expect(others).toEqual([]);
    if (!admin) throw new Error('no admin Job container');
    expect(admin.process).toBe('admin');
    for (const name of envNames(admin.container, rendered.base)) expect(ALLOWED_ENV.admin.has(name), name).toBe(true);
    expect(admin.container.command).toEqual(['node', 'tools/admin/dist/cli.js', 'load-fixture', '/fixtures/fixture.json']);
  });

  it('every ConfigMap key and configMapKeyRef resolves', () => {
    for (const { workload, container } of [...mastheadContainers(rendered.base), ...mastheadContainers(extras)]) {
      for (const variable of container.env ?? []) {
        const configKey = variable.valueFrom?.configMapKeyRef;
        if (configKey)
          expect(configMapData(rendered.base, configKey.name ?? ''), `${nameOf(workload)} ${variable.name}`).toHaveProperty([
            configKey.key,
          ]);
      }
    }
    for (const key of Object.keys(configMapData(rendered.base, ENV_CONFIGMAP))) expect(ALL_ENV.has(key), key).toBe(true);
  });

  it('no Secret is rendered; secrets (key rings, provider keys) come by reference to masthead-secrets', () => {
    for (const stack of ['base', 'dev', 'prod'] as const) {
      expect(
        rendered[stack].some((object) => object.kind === 'Secret'),
        stack,
      ).toBe(false);
      for (const { workload, container } of mastheadContainers(rendered[stack])) {
        expect(
          container.envFrom?.some((source) => source.secretRef),
          nameOf(workload),
        ).not.toBe(true);
        for (const variable of container.env ?? []) {
          const secret = variable.valueFrom?.secretKeyRef;
          if (!secret) continue;
          // A key ring, provider key or webhook secret the operator creates (docs/adr/0120, 0147, 0164, 0185): by reference only.
          expect(variable.name, nameOf(workload)).toMatch(/_SECRETS_KEYS$|^GEOINFO_API_KEY$|^CARDPROVIDER_WEBHOOK_SECRETS$/);
          expect(secret, `${nameOf(workload)} ${variable.name}`).toEqual({ name: 'masthead-secrets', key: variable.name, optional: true });
        }
      }
    }
  });

  it.each(['base', 'dev', 'prod'] as const)('%s: EVENT_STREAM_REPLICAS is the number of NATS servers', (stack) => {
    const nats = find<IStatefulSet>(rendered[stack], 'StatefulSet', 'nats');
    expect(configMapData(rendered[stack], ENV_CONFIGMAP)['EVENT_STREAM_REPLICAS']).toBe(String(nats.spec?.replicas ?? 1));
  });

  it.each(['base', 'dev', 'prod'] as const)('%s: every *_ADDR of the ConfigMap is an existing Service name and port', (stack) => {
    const data = configMapData(rendered[stack], ENV_CONFIGMAP);
    for (const [service, variable] of Object.entries(ADDRESS_VARIABLES)) {
      const address = data[variable];
      expect(address, variable).toBe(`${service}:${GRPC_PORT}`);
      expect(resolvesToService(address ?? '', rendered[stack]), `${variable}=${address}`).toBe(true);
    }
    expect(data['GRPC_LISTEN']).toBe(`0.0.0.0:${GRPC_PORT}`);
  });

  it.each(['base', 'dev', 'prod'] as const)('%s: MONGO_URL names every replica-set member and NATS_URL the nats Service', (stack) => {
    const objects = rendered[stack];
    const data = configMapData(objects, ENV_CONFIGMAP);
    const mongo = find<IStatefulSet>(objects, 'StatefulSet', 'mongo');
    const members = Array.from({ length: mongo.spec?.replicas ?? 1 }, (_, i) => `mongo-${i}.${mongo.spec?.serviceName}:27017`);
    const url = parseMongoUrl(data['MONGO_URL'] ?? '');
    expect(url.hosts).toEqual(members);
    expect(mainContainer(mongo).args).toEqual(expect.arrayContaining(['--replSet', url.replicaSet]));
    const init = find<IJob>(objects, 'Job', 'mongo-init');
    expect(envValue(mainContainer(init), objects, 'MONGO_REPLICAS')).toBe(String(mongo.spec?.replicas));
    expect(envValue(mainContainer(init), objects, 'MONGO_REPLICA_SET')).toBe(url.replicaSet);
    const nats = /^nats:\/\/([^:]+):(\d+)$/.exec(data['NATS_URL'] ?? '');
    expect(nats, data['NATS_URL']).not.toBeNull();
    expect(resolvesToService(`${nats?.[1]}:${nats?.[2]}`, objects)).toBe(true);
  });
});

describe('probes and Services', () => {
  it.each(SERVICE_NAMES)('%s: gRPC startup, readiness and liveness probes on 50051 and a ClusterIP Service', (name) => {
    const workload = deployment(rendered.base, name);
    const container = mainContainer(workload);
    expect(container.command).toEqual(['node', expect.stringMatching(/^--max-old-space-size=\d+$/), `services/${name}/dist/main.js`]);
    expect(container.ports?.map((port) => [port.name, port.containerPort])).toEqual([
      ['grpc', GRPC_PORT],
      ['metrics', METRICS_PORT],
    ]);
    expectGrpcProbe(container.startupProbe, `${name} startupProbe`);
    expectGrpcProbe(container.readinessProbe, `${name} readinessProbe`);
    expectGrpcProbe(container.livenessProbe, `${name} livenessProbe`);
    expect(envValue(container, rendered.base, 'GRPC_LISTEN')).toBe(`0.0.0.0:${GRPC_PORT}`);
    const service = find<IService>(rendered.base, 'Service', name);
    expect(service.spec?.type ?? 'ClusterIP').toBe('ClusterIP');
    expect(service.spec?.clusterIP).toBeUndefined();
    expect(service.spec?.ports?.map((port) => [port.port, port.targetPort])).toEqual([[GRPC_PORT, 'grpc']]);
    expect(container.ports?.[0]?.name).toBe('grpc');
    expect(selects(service, podLabelsOf(workload))).toBe(true);
    expect(workload.spec?.selector.matchLabels).toEqual(service.spec?.selector);
  });

  it('gateway: /healthz for liveness, /readyz for readiness, Service on 8080, Ingress to /api/v1', () => {
    const workload = deployment(rendered.base, 'gateway');
    const container = mainContainer(workload);
    expect(container.command).toEqual(['node', expect.stringMatching(/^--max-old-space-size=\d+$/), 'gateway/dist/main.js']);
    expect(container.ports?.map((port) => [port.name, port.containerPort])).toEqual([['http', GATEWAY_PORT]]);
    expect(envValue(container, rendered.base, 'PORT')).toBe(String(GATEWAY_PORT));
    expect(envValue(container, rendered.base, 'HOST')).toBe('0.0.0.0');
    expect(container.livenessProbe?.httpGet).toMatchObject({ path: '/healthz', port: 'http' });
    expect(container.readinessProbe?.httpGet).toMatchObject({ path: '/readyz', port: 'http' });
    expect(container.startupProbe?.httpGet?.path).toBe('/healthz');
    const service = find<IService>(rendered.base, 'Service', 'gateway');
    expect(service.spec?.ports?.map((port) => [port.name, port.port])).toEqual([['http', GATEWAY_PORT]]);
    expect(selects(service, podLabelsOf(workload))).toBe(true);
    const ingress = find<IIngress>(rendered.base, 'Ingress', 'gateway');
    const paths = ingress.spec?.rules?.flatMap((rule) => rule.http?.paths ?? []) ?? [];
    expect(paths.map((path) => [path.path, path.pathType, path.backend.service?.name, path.backend.service?.port?.name])).toEqual([
      ['/api/v1', 'Prefix', 'gateway', 'http'],
    ]);
  });
});

type ILabelSelector = NonNullable<INetworkPolicy['spec']>['podSelector'];

/** Does a label selector (matchLabels, matchExpressions with In/NotIn/Exists) select these labels? */
function labelSelectorMatches(selector: ILabelSelector | undefined, labels: Record<string, string>): boolean {
  if (!selector) return false;
  const byLabels = Object.entries(selector.matchLabels ?? {}).every(([key, value]) => labels[key] === value);
  const byExpressions = (selector.matchExpressions ?? []).every((expression) => {
    const value = labels[expression.key];
    if (expression.operator === 'In') return value !== undefined && (expression.values ?? []).includes(value);
    if (expression.operator === 'NotIn') return value === undefined || !(expression.values ?? []).includes(value);
    if (expression.operator === 'Exists') return value !== undefined;
    return value === undefined;
  });
  return byLabels && byExpressions;
}

describe('metrics and network policies (docs/adr/0183, 0185)', () => {
  it.each(['base', 'dev', 'prod'] as const)('%s: every Masthead process is scraped on the port it serves /metrics on', (stack) => {
    const objects = rendered[stack];
    for (const { workload, container, process } of mastheadContainers(objects).filter(({ workload }) => workload.kind === 'Deployment')) {
      const annotations = workload.spec?.template.metadata?.annotations ?? {};
      const port = process === 'gateway' ? GATEWAY_PORT : Number(envValue(container, objects, 'METRICS_PORT'));
      expect(annotations, nameOf(workload)).toEqual({
        'prometheus.io/scrape': 'true',
        'prometheus.io/port': String(port),
        'prometheus.io/path': '/metrics',
      });
      expect(
        container.ports?.map((candidate) => candidate.containerPort),
        nameOf(workload),
      ).toContain(port);
    }
  });

  it.each(['base', 'dev', 'prod'] as const)('%s: a default deny, and one policy per process that opens exactly its ports', (stack) => {
    const objects = rendered[stack];
    const policies = ofKind<INetworkPolicy>(objects, 'NetworkPolicy');
    const deny = policies.find((policy) => nameOf(policy) === 'default-deny-ingress');
    expect(deny?.spec?.podSelector).toEqual({});
    expect(deny?.spec?.ingress).toBeUndefined();
    const long = workloads(objects).filter((workload) => workload.kind !== 'Job');
    for (const workload of long) {
      const labels = podLabelsOf(workload);
      const own = policies.filter((policy) => policy !== deny && labelSelectorMatches(policy.spec?.podSelector, labels));
      expect(own.map(nameOf), nameOf(workload)).toEqual([nameOf(workload)]);
      const opened = new Set((own[0]?.spec?.ingress ?? []).flatMap((rule) => (rule.ports ?? []).map((port) => Number(port.port))));
      const served = new Set(containersOf(workload).flatMap((container) => (container.ports ?? []).map((port) => port.containerPort)));
      expect([...opened].sort(), nameOf(workload)).toEqual([...served].sort());
    }
    expect(policies.length).toBe(long.length + 1);
  });

  it('lets the gateway, the services and the admin CLI reach the services, and nothing else reach the database', () => {
    const objects = rendered.base;
    const policies = ofKind<INetworkPolicy>(objects, 'NetworkPolicy');
    const admits = (target: string, from: Record<string, string>, port: number): boolean =>
      (find<INetworkPolicy>(objects, 'NetworkPolicy', target).spec?.ingress ?? []).some(
        (rule) =>
          (rule.ports ?? []).some((candidate) => Number(candidate.port) === port) &&
          (rule.from ?? []).some((peer) => !peer.namespaceSelector && labelSelectorMatches(peer.podSelector, from)),
      );
    const pods = Object.fromEntries(workloads([...objects, ...extras]).map((workload) => [nameOf(workload), podLabelsOf(workload)]));
    for (const service of SERVICE_NAMES) {
      for (const caller of ['gateway', ...SERVICE_NAMES, 'admin-load-fixture'])
        expect(admits(service, pods[caller]!, GRPC_PORT), `${caller} → ${service}`).toBe(true);
      expect(admits(service, pods['mongo']!, GRPC_PORT), `mongo → ${service}`).toBe(false);
      expect(admits('mongo', pods[service]!, 27017), `${service} → mongo`).toBe(true);
      expect(admits('nats', pods[service]!, 4222), `${service} → nats`).toBe(true);
    }
    expect(admits('mongo', pods['gateway']!, 27017)).toBe(false);
    expect(admits('mongo', pods['admin-load-fixture']!, 27017)).toBe(false);
    expect(admits('mongo', pods['mongo-init']!, 27017)).toBe(true);
    expect(policies.every((policy) => (policy.spec?.policyTypes ?? []).join() === 'Ingress')).toBe(true);
  });
});

describe('pods: hardening, shutdown, sizing, disruption', () => {
  const allWorkloads = [...workloads(rendered.base), ...workloads(extras)];

  it.each(allWorkloads.map((workload) => [`${workload.kind}/${nameOf(workload)}`, workload]))(
    '%s: non-root, read-only root filesystem, no privilege escalation, requests and limits',
    (_name, workload) => {
      const pod = podSpecOf(workload);
      expect(pod.securityContext?.runAsNonRoot).toBe(true);
      expect(pod.securityContext?.runAsUser).toBeGreaterThan(0);
      expect(pod.automountServiceAccountToken).toBe(false);
      for (const container of containersOf(workload)) {
        expect(container.securityContext?.readOnlyRootFilesystem, container.name).toBe(true);
        expect(container.securityContext?.allowPrivilegeEscalation, container.name).toBe(false);
        expect(container.securityContext?.capabilities?.drop, container.name).toEqual(['ALL']);
        const { requests, limits } = container.resources ?? {};
        expect(cores(requests?.['cpu']), `${container.name} cpu request`).toBeGreaterThan(0);
        expect(mebibytes(requests?.['memory']), `${container.name} memory request`).toBeGreaterThan(0);
        expect(cores(limits?.['cpu']), `${container.name} cpu limit fits a 2-core node`).toBeLessThanOrEqual(2);
        expect(mebibytes(limits?.['memory']), `${container.name} memory limit`).toBeGreaterThanOrEqual(mebibytes(requests?.['memory']));
        const heap = /^--max-old-space-size=(\d+)$/.exec(container.command?.[1] ?? '')?.[1];
        if (heap) expect(Number(heap), `${container.name} heap below its memory limit`).toBeLessThan(mebibytes(limits?.['memory']));
      }
    },
  );

  it('the Masthead Deployments stop within a 20 s grace period and mount a writable /tmp', () => {
    for (const { workload } of mastheadContainers(rendered.base)) {
      expect(podSpecOf(workload).terminationGracePeriodSeconds, nameOf(workload)).toBe(20);
      expect(mainContainer(workload).volumeMounts?.map((mount) => mount.mountPath)).toContain('/tmp');
    }
  });

  it('dev: the requests of the whole stack fit one 2-core node (with room for the system)', () => {
    const pods = workloads(rendered.dev).filter((workload) => workload.kind !== 'Job');
    const total = pods.reduce((sum, workload) => {
      const replicas = (workload as IDeployment | IStatefulSet).spec?.replicas ?? 1;
      return sum + replicas * containersOf(workload).reduce((cpu, container) => cpu + cores(container.resources?.requests?.['cpu']), 0);
    }, 0);
    expect(total).toBeLessThanOrEqual(1.6);
  });

  it('identity gets the most memory: room for argon2id at ARGON2_MEMORY_KIB per admitted hash', () => {
    const identity = mainContainer(deployment(rendered.base, 'identity'));
    const value = (name: string): number => Number(envValue(identity, rendered.base, name));
    const argon2Mib = value('ARGON2_MEMORY_KIB') / 1024;
    const admitted = value('HASH_CONCURRENCY') + value('HASH_QUEUE_LIMIT');
    expect(argon2Mib).toBe(19);
    const limit = mebibytes(identity.resources?.limits?.['memory']);
    expect(limit).toBeGreaterThanOrEqual(150 + admitted * argon2Mib);
    for (const name of SERVICE_NAMES.filter((service) => service !== 'identity')) {
      expect(limit).toBeGreaterThan(mebibytes(mainContainer(deployment(rendered.base, name)).resources?.limits?.['memory']));
    }
  });

  it.each(['gateway', 'identity', 'mongo', 'nats'])('%s has a PodDisruptionBudget selecting its pods', (name) => {
    const budget = find<IPodDisruptionBudget>(rendered.base, 'PodDisruptionBudget', name);
    const workload = workloads(rendered.base).find((candidate) => nameOf(candidate) === name && candidate.kind !== 'Job');
    expect(workload).toBeDefined();
    const labels = podLabelsOf(workload as Workload);
    expect(Object.entries(budget.spec?.selector?.matchLabels ?? {}).every(([key, v]) => labels[key] === v)).toBe(true);
    expect(budget.spec?.maxUnavailable ?? budget.spec?.minAvailable).toBeDefined();
  });
});

describe('MongoDB and NATS', () => {
  it('mongo: 3-member replica set StatefulSet on PVCs behind a headless Service, initiated by a Job', () => {
    const mongo = find<IStatefulSet>(rendered.base, 'StatefulSet', 'mongo');
    const container = mainContainer(mongo);
    expect(mongo.spec?.replicas).toBe(3);
    expect(container.image).toMatch(/^mongo:7(\.|$)/);
    expect(container.args).toEqual(expect.arrayContaining(['--replSet', 'rs0', '--bind_ip_all']));
    const headless = find<IService>(rendered.base, 'Service', mongo.spec?.serviceName ?? '');
    expect(headless.spec?.clusterIP).toBe('None');
    expect(headless.spec?.publishNotReadyAddresses).toBe(true);
    expect(selects(headless, podLabelsOf(mongo))).toBe(true);
    const claims = mongo.spec?.volumeClaimTemplates ?? [];
    expect(claims.map((claim) => claim.metadata?.name)).toEqual(['data']);
    expect(container.volumeMounts?.find((mount) => mount.name === 'data')?.mountPath).toBe('/data/db');
    const init = find<IJob>(rendered.base, 'Job', 'mongo-init');
    expect(mainContainer(init).image).toBe(container.image);
    const script = configMapData(rendered.base, 'mongo-init');
    expect(script['initiate.js']).toContain('rs.initiate');
    expect(script['initiate.js']).toContain('NotYetInitialized');
  });

  it('nats: 3-node JetStream cluster with file storage on PVCs and a route to every node', () => {
    const nats = find<IStatefulSet>(rendered.base, 'StatefulSet', 'nats');
    const container = mainContainer(nats);
    expect(nats.spec?.replicas).toBe(3);
    expect(container.image).toMatch(/^nats:2\.10(\.|-|$)/);
    const conf = natsConf(rendered.base);
    const storeDir = /store_dir:\s*(\S+)/.exec(conf)?.[1];
    expect(container.volumeMounts?.find((mount) => mount.name === 'data')?.mountPath).toBe(storeDir);
    expect(nats.spec?.volumeClaimTemplates?.map((claim) => claim.metadata?.name)).toEqual(['data']);
    const headless = find<IService>(rendered.base, 'Service', nats.spec?.serviceName ?? '');
    expect(headless.spec?.clusterIP).toBe('None');
    const routes = [...conf.matchAll(/nats:\/\/([a-z0-9-]+)\.([a-z0-9-]+):6222/g)].map((match) => `${match[1]}.${match[2]}`);
    expect(routes).toEqual([0, 1, 2].map((i) => `nats-${i}.${nats.spec?.serviceName}`));
    expect(conf).toMatch(/server_name:\s*\$SERVER_NAME/);
    expect(container.env?.find((variable) => variable.name === 'SERVER_NAME')?.valueFrom?.fieldRef?.fieldPath).toBe('metadata.name');
    expect(headless.spec?.ports?.map((port) => port.port).sort()).toEqual([4222, 6222, 8222]);
  });
});

describe('overlays', () => {
  it('dev: one replica of everything, a one-member replica set, a single NATS server', () => {
    const objects = rendered.dev;
    for (const workload of workloads(objects).filter((candidate) => candidate.kind !== 'Job')) {
      expect((workload as IDeployment | IStatefulSet).spec?.replicas, nameOf(workload)).toBe(1);
    }
    expect(natsConf(objects)).not.toMatch(/cluster\s*{/);
    expect(natsConf(objects)).toMatch(/jetstream\s*{/);
    expect(configMapData(objects, ENV_CONFIGMAP)['MASTHEAD_ENV']).toBe('development');
  });

  it('prod: gateway autoscaled from 2, identity 2+, images from a registry, TLS on the ingress', () => {
    const objects = rendered.prod;
    const hpa = find<IHorizontalPodAutoscaler>(objects, 'HorizontalPodAutoscaler', 'gateway');
    expect(hpa.spec?.scaleTargetRef).toMatchObject({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'gateway' });
    expect(hpa.spec?.minReplicas).toBeGreaterThanOrEqual(2);
    expect(hpa.spec?.maxReplicas).toBeGreaterThan(hpa.spec?.minReplicas ?? 0);
    // The autoscaler owns the gateway's replica count.
    expect(deployment(objects, 'gateway').spec?.replicas).toBeUndefined();
    expect(deployment(objects, 'identity').spec?.replicas).toBeGreaterThanOrEqual(2);
    expect(find<IStatefulSet>(objects, 'StatefulSet', 'mongo').spec?.replicas).toBe(3);
    expect(find<IStatefulSet>(objects, 'StatefulSet', 'nats').spec?.replicas).toBe(3);
    expect(configMapData(objects, ENV_CONFIGMAP)['MASTHEAD_ENV']).toBe('production');
    const ingress = find<IIngress>(objects, 'Ingress', 'gateway');
    expect(ingress.spec?.tls?.[0]?.hosts).toEqual(ingress.spec?.rules?.map((rule) => rule.host));
  });
});
