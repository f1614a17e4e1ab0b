import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import { isManifest, isRecord, manifestsIn, parseYamlFile, readYamlObject, rel, type Manifest } from './yaml-files.js';

/**
 * A small, dependency-free renderer for the subset of kustomize these manifests use, so that the
 * tests can check what an overlay produces without kubectl: `resources` (files and directories),
 * `secretGenerator`/`configMapGenerator` with literals, `patches` (strategic-merge patches, where
 * lists of objects merge by `name`, and JSON 6902 patches with add/replace/remove), `replicas`,
 * `images`, `namespace` and `labels`. Anything else in a kustomization is refused, so that a new
 * feature gets support here (or a different check) instead of being silently ignored.
 * For base and both overlays its output was compared with `kubectl kustomize` (kustomize v5.5):
 * the same objects, field for field.
 */

export interface Kustomization {
  dir: string;
  file: string;
  resources: string[];
  patches: PatchEntry[];
  generators: GeneratorEntry[];
  replicas: { name: string; count: number }[];
  images: { name: string; newName?: string; newTag?: string; digest?: string }[];
  namespace?: string;
  labels: { pairs: Record<string, string>; includeSelectors?: boolean; includeTemplates?: boolean }[];
}

export interface PatchEntry {
  path?: string;
  patch?: string;
  target?: { kind?: string; name?: string };
}

interface GeneratorEntry {
  kind: 'Secret' | 'ConfigMap';
  name: string;
  literals: string[];
  files: string[];
  envs: string[];
  labels: Record<string, string>;
  type?: string;
}

const KNOWN_FIELDS = new Set([
  'apiVersion',
  'kind',
  'resources',
  'patches',
  'secretGenerator',
  'configMapGenerator',
  'replicas',
  'images',
  'namespace',
  'labels',
]);

export const KUSTOMIZATION_FILE = 'kustomization.yaml';

const strings = (value: unknown, what: string): string[] => {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) throw new Error(`${what}: expected a list of strings`);
  return value;
};

const records = (value: unknown, what: string): Record<string, unknown>[] => {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every(isRecord)) throw new Error(`${what}: expected a list of mappings`);
  return value;
};

export function loadKustomization(dir: string): Kustomization {
  const file = join(dir, KUSTOMIZATION_FILE);
  const raw = readYamlObject(file);
  const unknown = Object.keys(raw).filter((key) => !KNOWN_FIELDS.has(key));
  if (unknown.length > 0) throw new Error(`${rel(file)}: fields this renderer does not support: ${unknown.join(', ')}`);
  if (raw['kind'] !== 'Kustomization' || raw['apiVersion'] !== 'kustomize.config.k8s.io/v1beta1') {
    throw new Error(`${rel(file)}: expected apiVersion kustomize.config.k8s.io/v1beta1, kind Kustomization`);
  }
  const generator = (kind: 'Secret' | 'ConfigMap', entry: Record<string, unknown>): GeneratorEntry => {
    const options = isRecord(entry['options']) ? entry['options'] : {};
    if (options['disableNameSuffixHash'] !== true) {
      throw new Error(`${rel(file)}: generator ${String(entry['name'])} must set disableNameSuffixHash (not modelled here)`);
    }
    const labels = isRecord(options['labels']) ? (options['labels'] as Record<string, string>) : {};
    return {
      kind,
      name: String(entry['name']),
      literals: strings(entry['literals'], `${rel(file)} literals`),
      files: strings(entry['files'], `${rel(file)} files`),
      envs: strings(entry['envs'], `${rel(file)} envs`),
      labels,
      ...(typeof entry['type'] === 'string' ? { type: entry['type'] } : {}),
    };
  };
  return {
    dir,
    file,
    resources: strings(raw['resources'], `${rel(file)} resources`),
    patches: records(raw['patches'], `${rel(file)} patches`) as PatchEntry[],
    generators: [
      ...records(raw['secretGenerator'], 'secretGenerator').map((entry) => generator('Secret', entry)),
      ...records(raw['configMapGenerator'], 'configMapGenerator').map((entry) => generator('ConfigMap', entry)),
    ],
    replicas: records(raw['replicas'], 'replicas') as Kustomization['replicas'],
    images: records(raw['images'], 'images') as Kustomization['images'],
    ...(typeof raw['namespace'] === 'string' ? { namespace: raw['namespace'] } : {}),
    labels: records(raw['labels'], 'labels') as Kustomization['labels'],
  };
}

/** Paths a kustomization refers to (resources, patch files, generator files), resolved. */
export function referencedPaths(kustomization: Kustomization): string[] {
  return [
    ...kustomization.resources,
    ...kustomization.patches.flatMap((patch) => (patch.path ? [patch.path] : [])),
    ...kustomization.generators.flatMap((generator) => [...generator.files, ...generator.envs]),
  ].map((path) => resolve(kustomization.dir, path.replace(/^[^=]+=/, '')));
}

export const isKustomizationDir = (path: string): boolean =>
  existsSync(path) && statSync(path).isDirectory() && existsSync(join(path, KUSTOMIZATION_FILE));

const clone = <T>(value: T): T => structuredClone(value);

/** Strategic merge, simplified: maps merge, `null` deletes, lists of named objects merge by name. */
export function strategicMerge(base: unknown, patch: unknown): unknown {
  if (isRecord(base) && isRecord(patch)) {
    const merged: Record<string, unknown> = { ...base };
    for (const [key, value] of Object.entries(patch)) {
      if (value === null) delete merged[key];
      else merged[key] = key in base ? strategicMerge(base[key], value) : clone(value);
    }
    return merged;
  }
  const named = (list: unknown[]): list is Record<string, unknown>[] =>
    list.every((item) => isRecord(item) && typeof item['name'] === 'string');
  if (Array.isArray(base) && Array.isArray(patch) && named(base) && named(patch)) {
    const merged = base.map((item) => clone(item));
    for (const item of patch) {
      const at = merged.findIndex((existing) => existing['name'] === item['name']);
      if (at >= 0) merged[at] = strategicMerge(merged[at], item) as Record<string, unknown>;
      else merged.push(clone(item));
    }
    return merged;
  }
  return clone(patch);
}

const pointer = (path: string): string[] =>
  path
    .split('/')
    .slice(1)
    .map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'));

/** RFC 6902 add, replace and remove. */
export function jsonPatch(document: unknown, operations: unknown[]): unknown {
  const result = clone(document);
  for (const operation of operations) {
    if (!isRecord(operation) || typeof operation['op'] !== 'string' || typeof operation['path'] !== 'string') {
      throw new Error(`invalid JSON patch operation ${JSON.stringify(operation)}`);
    }
    const tokens = pointer(operation['path']);
    const last = tokens.pop();
    if (last === undefined) throw new Error('JSON patch on the document root is not supported');
    let parent: unknown = result;
    for (const token of tokens) {
      parent = Array.isArray(parent) ? parent[Number(token)] : isRecord(parent) ? parent[token] : undefined;
      if (parent === undefined) throw new Error(`JSON patch path ${operation['path']} does not exist`);
    }
    const op = operation['op'];
    if (Array.isArray(parent)) {
      const index = last === '-' ? parent.length : Number(last);
      if (op === 'add') parent.splice(index, 0, clone(operation['value']));
      else if (index >= parent.length) throw new Error(`JSON patch path ${operation['path']} does not exist`);
      else if (op === 'replace') parent[index] = clone(operation['value']);
      else if (op === 'remove') parent.splice(index, 1);
      else throw new Error(`JSON patch op ${op} is not supported`);
    } else if (isRecord(parent)) {
      if ((op === 'replace' || op === 'remove') && !(last in parent))
        throw new Error(`JSON patch path ${operation['path']} does not exist`);
      if (op === 'add' || op === 'replace') parent[last] = clone(operation['value']);
      else if (op === 'remove') delete parent[last];
      else throw new Error(`JSON patch op ${op} is not supported`);
    } else {
      throw new Error(`JSON patch path ${operation['path']} does not exist`);
    }
  }
  return result;
}

const matches = (manifest: Manifest, target: { kind?: string; name?: string }): boolean =>
  (target.kind === undefined || manifest.kind === target.kind) && (target.name === undefined || manifest.metadata.name === target.name);

function applyPatch(objects: Manifest[], entry: PatchEntry, dir: string): void {
  const source = entry.path
    ? readPatchFile(resolve(dir, entry.path))
    : entry.patch !== undefined
      ? (parse(entry.patch) as unknown)
      : undefined;
  if (source === undefined) throw new Error(`patch in ${rel(dir)} has neither path nor patch`);
  if (Array.isArray(source)) {
    if (!entry.target) throw new Error(`JSON 6902 patch in ${rel(dir)} needs a target`);
    const targets = objects.filter((object) => matches(object, entry.target ?? {}));
    if (targets.length === 0) throw new Error(`patch target ${JSON.stringify(entry.target)} matches nothing (${rel(dir)})`);
    for (const target of targets) objects[objects.indexOf(target)] = jsonPatch(target, source) as Manifest;
    return;
  }
  if (!isManifest(source)) throw new Error(`strategic-merge patch in ${rel(dir)} needs apiVersion, kind and metadata.name`);
  const target = entry.target ?? { kind: source.kind, name: source.metadata.name };
  const targets = objects.filter((object) => matches(object, target));
  if (targets.length === 0) throw new Error(`patch ${source.kind}/${source.metadata.name} matches nothing (${rel(dir)})`);
  for (const object of targets) objects[objects.indexOf(object)] = strategicMerge(object, source) as Manifest;
}

/** A patch file: one YAML document, a mapping (strategic merge) or a list (JSON 6902). */
function readPatchFile(file: string): unknown {
  if (!existsSync(file)) throw new Error(`${rel(file)} does not exist`);
  const documents = parseYamlFile(file);
  const [first] = documents;
  if (!first || documents.length !== 1) throw new Error(`${rel(file)}: a patch file holds exactly one document`);
  return first.value;
}

function generate(entry: GeneratorEntry, dir: string): Manifest {
  if (entry.files.length > 0 || entry.envs.length > 0) {
    throw new Error(`${rel(dir)}: generator ${entry.name} uses files or envs, which this renderer does not read`);
  }
  const data: Record<string, string> = {};
  for (const literal of entry.literals) {
    const at = literal.indexOf('=');
    if (at <= 0) throw new Error(`${rel(dir)}: generator ${entry.name} literal without key=value`);
    data[literal.slice(0, at)] = literal.slice(at + 1);
  }
  const metadata = { name: entry.name, ...(Object.keys(entry.labels).length > 0 ? { labels: entry.labels } : {}) };
  if (entry.kind === 'Secret') {
    const encoded = Object.fromEntries(Object.entries(data).map(([key, value]) => [key, Buffer.from(value).toString('base64')]));
    return { apiVersion: 'v1', kind: 'Secret', metadata, type: entry.type ?? 'Opaque', data: encoded };
  }
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata, data };
}

const WORKLOADS = new Set(['Deployment', 'StatefulSet', 'Job']);

function podTemplate(manifest: Manifest): Record<string, unknown> | undefined {
  const spec = manifest['spec'];
  if (!WORKLOADS.has(manifest.kind) || !isRecord(spec) || !isRecord(spec['template'])) return undefined;
  return spec['template'];
}

function setImages(manifest: Manifest, images: Kustomization['images']): void {
  const podSpec = podTemplate(manifest)?.['spec'];
  if (!isRecord(podSpec)) return;
  for (const list of ['initContainers', 'containers']) {
    const containers = podSpec[list];
    if (!Array.isArray(containers)) continue;
    for (const container of containers) {
      if (!isRecord(container) || typeof container['image'] !== 'string') continue;
      const match = /^([^@:]+(?::\d+\/[^@:]+)?)(?::([^@]+))?(?:@(.+))?$/.exec(container['image']);
      if (!match) continue;
      const [, name, tag, digest] = match;
      const rule = images.find((image) => image.name === name);
      if (!rule) continue;
      const newName = rule.newName ?? name;
      if (rule.digest) container['image'] = `${newName}@${rule.digest}`;
      else if (rule.newTag) container['image'] = `${newName}:${rule.newTag}`;
      else container['image'] = `${newName}${tag ? `:${tag}` : ''}${digest ? `@${digest}` : ''}`;
    }
  }
}

const NAMESPACED_EXCEPTIONS = new Set(['Namespace']);

/** Renders the kustomization in `dir` (recursively through directory resources). */
export function render(dir: string): Manifest[] {
  const kustomization = loadKustomization(dir);
  const objects: Manifest[] = [];
  for (const resource of kustomization.resources) {
    const path = resolve(dir, resource);
    if (isKustomizationDir(path)) objects.push(...render(path));
    else if (existsSync(path)) objects.push(...manifestsIn(path));
    else throw new Error(`${rel(kustomization.file)}: resource ${resource} does not exist`);
  }
  objects.push(...kustomization.generators.map((entry) => generate(entry, dir)));
  for (const entry of kustomization.patches) applyPatch(objects, entry, dir);
  for (const { name, count } of kustomization.replicas) {
    const targets = objects.filter(
      (object) => (object.kind === 'Deployment' || object.kind === 'StatefulSet') && object.metadata.name === name,
    );
    if (targets.length === 0) throw new Error(`${rel(kustomization.file)}: replicas for ${name} match no Deployment or StatefulSet`);
    for (const target of targets) (target['spec'] as Record<string, unknown>)['replicas'] = count;
  }
  for (const object of objects) {
    setImages(object, kustomization.images);
    if (kustomization.namespace && !NAMESPACED_EXCEPTIONS.has(object.kind)) object.metadata.namespace = kustomization.namespace;
    for (const { pairs, includeSelectors, includeTemplates } of kustomization.labels) {
      if (includeSelectors) throw new Error(`${rel(kustomization.file)}: labels with includeSelectors are not modelled`);
      object.metadata.labels = { ...object.metadata.labels, ...pairs };
      const template = podTemplate(object);
      if (includeTemplates && template) {
        const metadata = isRecord(template['metadata']) ? template['metadata'] : (template['metadata'] = {});
        metadata['labels'] = { ...(isRecord(metadata['labels']) ? metadata['labels'] : {}), ...pairs };
        // kustomize labels a StatefulSet's volume claim templates too.
        const claims = (object['spec'] as Record<string, unknown>)['volumeClaimTemplates'];
        for (const claim of Array.isArray(claims) ? claims : []) {
          if (!isRecord(claim)) continue;
          const claimMetadata = isRecord(claim['metadata']) ? claim['metadata'] : (claim['metadata'] = {});
          claimMetadata['labels'] = { ...(isRecord(claimMetadata['labels']) ? claimMetadata['labels'] : {}), ...pairs };
        }
      }
    }
  }
  return objects;
}
