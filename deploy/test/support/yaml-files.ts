import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';

/** deploy/ */
export const deployDir = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const k8sDir = join(deployDir, 'k8s');
export const repoRoot = resolve(deployDir, '..');

/** A Kubernetes object as parsed, before it is known to be valid. */
export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [key: string]: unknown;
}

export interface ParsedDocument {
  file: string;
  index: number;
  value: unknown;
}

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export const isManifest = (value: unknown): value is Manifest =>
  isRecord(value) &&
  typeof value['apiVersion'] === 'string' &&
  typeof value['kind'] === 'string' &&
  isRecord(value['metadata']) &&
  typeof value['metadata']['name'] === 'string';

export const rel = (file: string): string => relative(repoRoot, file);

/** Every *.yaml / *.yml file under `dir`, sorted, node_modules excluded. */
export function yamlFilesUnder(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir).sort()) {
    if (entry === 'node_modules') continue;
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) found.push(...yamlFilesUnder(path));
    else if (/\.ya?ml$/.test(entry)) found.push(path);
  }
  return found;
}

/**
 * Parses every document of a multi-document YAML file. Syntax errors, duplicate keys and
 * warnings throw with the file name; empty documents (a trailing `---`) are dropped.
 */
export function parseYamlFile(file: string, options: { merge?: boolean } = {}): ParsedDocument[] {
  // `merge` enables YAML 1.1 merge keys (`<<: *anchor`), which Compose files use.
  const documents = parseAllDocuments(readFileSync(file, 'utf8'), { uniqueKeys: true, prettyErrors: true, merge: options.merge ?? false });
  if (!Array.isArray(documents)) throw new Error(`${rel(file)}: not a YAML stream`);
  const parsed: ParsedDocument[] = [];
  documents.forEach((document, index) => {
    const problems = [...document.errors, ...document.warnings];
    if (problems.length > 0) throw new Error(`${rel(file)} (document ${index}): ${problems.map((problem) => problem.message).join('; ')}`);
    const value: unknown = document.toJS({ maxAliasCount: 100 });
    if (value !== null && value !== undefined) parsed.push({ file, index, value });
  });
  return parsed;
}

export const readYamlObject = (file: string): Record<string, unknown> => {
  const [first, ...rest] = parseYamlFile(file);
  if (!first || rest.length > 0 || !isRecord(first.value)) throw new Error(`${rel(file)}: expected exactly one YAML mapping`);
  return first.value;
};

export function manifestsIn(file: string): Manifest[] {
  return parseYamlFile(file).map(({ value, index }) => {
    if (!isManifest(value)) throw new Error(`${rel(file)} (document ${index}): not a Kubernetes object (apiVersion, kind, metadata.name)`);
    return value;
  });
}
