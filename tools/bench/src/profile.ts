// Summaries of V8 .cpuprofile files (node --cpu-prof). Pure: unit-tested in test/profile.test.ts.

/** The part of V8's CPU profile format that the summary reads. */
export interface CpuProfile {
  nodes: Array<{
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
    hitCount?: number;
    children?: number[];
  }>;
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

export interface Frame {
  /** `function (file:line)`, or a V8 pseudo-frame such as `(garbage collector)`. */
  name: string;
  selfMs: number;
  /** Share of all sampled time, 0–1. */
  share: number;
}

export interface ProfileSummary {
  totalMs: number;
  /** Self time by function, largest first. */
  frames: Frame[];
  /** Self time by package (node_modules package, node: built-ins, or our source folder), largest first. */
  packages: Frame[];
}

/** Where a script belongs: the npm package, `node:internal`, or the workspace package folder. */
export function packageOf(url: string): string {
  if (url === '') return '(native/V8)';
  if (url.startsWith('node:')) return 'node:internal';
  const modules = url.lastIndexOf('/node_modules/');
  if (modules >= 0) {
    const parts = url.slice(modules + '/node_modules/'.length).split('/');
    return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
  }
  // file:///work/x/gateway/dist/… → gateway; libs/core/dist/… → libs/core
  const path = url.replace(/^file:\/\//, '');
  const match = /\/((?:libs|services|tools)\/[^/]+|gateway|proto)\/(?:dist|src)\//.exec(path);
  return match ? match[1]! : path;
}

const shortUrl = (url: string): string => {
  const modules = url.lastIndexOf('/node_modules/');
  if (modules >= 0) return url.slice(modules + '/node_modules/'.length);
  const repo = /\/((?:libs|services|tools)\/[^/]+\/.*|gateway\/.*|proto\/.*)$/.exec(url);
  return repo ? repo[1]! : url.replace(/^file:\/\//, '');
};

const frameName = (frame: CpuProfile['nodes'][number]['callFrame']): string => {
  const name = frame.functionName || '(anonymous)';
  return frame.url ? `${name} (${shortUrl(frame.url)}:${frame.lineNumber + 1})` : name;
};

/**
 * Self time per function and per package. Sample times come from `timeDeltas` when present
 * (exact), else each hit counts as the profile's mean interval. `(idle)` and `(program)` are
 * left out of the shares: they are time the process was not running JavaScript.
 */
export function summarizeProfile(profile: CpuProfile, top = 15): ProfileSummary {
  const selfById = new Map<number, number>();
  if (profile.samples && profile.timeDeltas && profile.samples.length === profile.timeDeltas.length) {
    // timeDeltas[i] is the time before sample i; attribute it to the sample that ends it.
    for (let i = 0; i < profile.samples.length; i++) {
      const id = profile.samples[i]!;
      selfById.set(id, (selfById.get(id) ?? 0) + Math.max(0, profile.timeDeltas[i + 1] ?? 0) / 1000);
    }
  } else {
    const hits = profile.nodes.reduce((sum, node) => sum + (node.hitCount ?? 0), 0);
    const interval = hits > 0 ? (profile.endTime - profile.startTime) / 1000 / hits : 0;
    for (const node of profile.nodes) selfById.set(node.id, (node.hitCount ?? 0) * interval);
  }
  const byFrame = new Map<string, number>();
  const byPackage = new Map<string, number>();
  let totalMs = 0;
  for (const node of profile.nodes) {
    const ms = selfById.get(node.id) ?? 0;
    const name = node.callFrame.functionName;
    if (ms === 0 || name === '(idle)' || name === '(program)' || name === '(root)') continue;
    totalMs += ms;
    const frame = frameName(node.callFrame);
    byFrame.set(frame, (byFrame.get(frame) ?? 0) + ms);
    const pkg = name === '(garbage collector)' ? '(garbage collector)' : packageOf(node.callFrame.url);
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + ms);
  }
  const ranked = (map: Map<string, number>): Frame[] =>
    [...map]
      .map(([name, selfMs]) => ({ name, selfMs, share: totalMs > 0 ? selfMs / totalMs : 0 }))
      .sort((a, b) => b.selfMs - a.selfMs)
      .slice(0, top);
  return { totalMs, frames: ranked(byFrame), packages: ranked(byPackage) };
}

export function formatSummary(title: string, summary: ProfileSummary): string {
  const lines = [`${title}: ${summary.totalMs.toFixed(0)} ms of JavaScript-side CPU sampled`];
  lines.push('  by package:');
  for (const entry of summary.packages) lines.push(`    ${(entry.share * 100).toFixed(1).padStart(5)} %  ${entry.name}`);
  lines.push('  top frames (self time):');
  for (const entry of summary.frames) lines.push(`    ${(entry.share * 100).toFixed(1).padStart(5)} %  ${entry.name}`);
  return lines.join('\n');
}
