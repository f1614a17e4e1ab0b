// The project runs on one Node, the version in .node-version (docs/adr/0186): the entry scripts
// bring it in, and everything they start (pnpm, turbo, vitest and its workers) must run on it.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const nodeVersion = readFileSync(`${ROOT}/.node-version`, 'utf8').trim();
const rootPackage = JSON.parse(readFileSync(`${ROOT}/package.json`, 'utf8')) as {
  engines: { node: string };
  devDependencies: Record<string, string>;
};
const [major = '', minor = '', patch = ''] = nodeVersion.split('.');

describe("the project's Node", () => {
  it('is an exact version', () => {
    expect(nodeVersion).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('runs this suite (vitest workers started through pnpm by the entry scripts)', () => {
    expect(process.versions.node).toBe(nodeVersion);
  });

  it('is a long-term-support release', () => {
    // Node names its LTS releases (24.x: "Krypton"); a Current release has no name.
    expect(process.release.lts).toEqual(expect.any(String));
  });

  it('is admitted by the engines range of the root package, a caret range of its major line', () => {
    const [, rangeMajor, rangeMinor, rangePatch] = /^\^(\d+)\.(\d+)\.(\d+)$/.exec(rootPackage.engines.node) ?? [];
    expect(rangeMajor).toBe(major);
    expect(Number(rangeMinor) * 1000 + Number(rangePatch)).toBeLessThanOrEqual(Number(minor) * 1000 + Number(patch));
  });

  it('is the one the types describe (@types/node of the same major)', () => {
    expect(rootPackage.devDependencies['@types/node']).toMatch(new RegExp(`^\\^${major}\\.`));
  });
});
