import { describe, expect, it } from 'vitest';

import { formatSummary, packageOf, summarizeProfile, type CpuProfile } from '../src/profile.js';

const frame = (functionName: string, url = '', lineNumber = 0) => ({ functionName, url, lineNumber });

// root → main → serialize (hot) ; root → (garbage collector) ; root → (idle)
const profile: CpuProfile = {
  nodes: [
    { id: 1, callFrame: frame('(root)'), children: [2, 4, 5] },
    { id: 2, callFrame: frame('handle', 'file:///repo/gateway/dist/routes/router.js', 9), children: [3] },
    { id: 3, callFrame: frame('stringify', 'file:///repo/node_modules/.pnpm/express@5.1.0/node_modules/express/lib/response.js', 99) },
    { id: 4, callFrame: frame('(garbage collector)') },
    { id: 5, callFrame: frame('(idle)') },
  ],
  startTime: 0,
  endTime: 10_000,
  // Samples: 3, 3, 2, 4, 5; timeDeltas in microseconds (the first is before any sample).
  samples: [3, 3, 2, 4, 5],
  timeDeltas: [0, 2000, 3000, 2000, 1000],
};

describe('profile summary', () => {
  it('attributes each interval to the sample that precedes it, leaving idle time out', () => {
    const summary = summarizeProfile(profile);
    // 3: 2 + 3 ms; 2: 2 ms; 4: 1 ms; 5 (idle, last): left out.
    expect(summary.totalMs).toBe(8);
    expect(summary.frames).toEqual([
      { name: 'stringify (express/lib/response.js:100)', selfMs: 5, share: 0.625 },
      { name: 'handle (gateway/dist/routes/router.js:10)', selfMs: 2, share: 0.25 },
      { name: '(garbage collector)', selfMs: 1, share: 0.125 },
    ]);
    expect(summary.packages.map((entry) => [entry.name, entry.selfMs])).toEqual([
      ['express', 5],
      ['gateway', 2],
      ['(garbage collector)', 1],
    ]);
    expect(formatSummary('gateway', summary)).toContain(' 62.5 %  express');
  });

  it('falls back to hit counts spread over the profile duration', () => {
    const summary = summarizeProfile({
      nodes: [
        { id: 1, callFrame: frame('(root)'), hitCount: 0 },
        { id: 2, callFrame: frame('a', 'node:internal/streams'), hitCount: 3 },
        { id: 3, callFrame: frame('b', 'file:///r/libs/core/dist/grpc/client.js'), hitCount: 1 },
      ],
      startTime: 0,
      endTime: 4000,
    });
    expect(summary.totalMs).toBe(4);
    expect(summary.packages.map((entry) => entry.name)).toEqual(['node:internal', 'libs/core']);
  });

  it('names the package of a script', () => {
    expect(packageOf('file:///w/node_modules/.pnpm/@grpc+grpc-js@1.12.0/node_modules/@grpc/grpc-js/build/src/call.js')).toBe(
      '@grpc/grpc-js',
    );
    expect(packageOf('file:///w/node_modules/.pnpm/pino@9/node_modules/pino/lib/proto.js')).toBe('pino');
    expect(packageOf('node:internal/http')).toBe('node:internal');
    expect(packageOf('file:///w/services/identity/dist/sessions/authenticator.js')).toBe('services/identity');
    expect(packageOf('')).toBe('(native/V8)');
  });
});
