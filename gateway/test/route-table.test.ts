import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ROUTES } from '../src/routes/table.js';

const inventory = fileURLToPath(new URL('../../../shared/spec/OPERATIONS.md', import.meta.url));

describe('route table', () => {
  it('declares each method and path once', () => {
    const keys = ROUTES.map((route) => `${route.method} ${route.path}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys.length).toBe(163);
  });

  it.runIf(existsSync(inventory))('covers every operation of OPERATIONS.md with its owning service', () => {
    const rows = [...readFileSync(inventory, 'utf8').matchAll(/^\| \d+ \| (\w+) \| (\w+) \| `([^`]+)` \|/gm)];
    expect(rows).toHaveLength(162);
    for (const [, service, method, path] of rows) {
      const route = ROUTES.find((candidate) => candidate.method === method && candidate.path === path);
      expect(route, `${method} ${path}`).toBeDefined();
      expect(route?.service).toBe(service);
    }
  });

  it('gives admin-prefixed paths the admin ACL except the team resend, which keeps user ACL', () => {
    for (const route of ROUTES.filter((candidate) => candidate.path.startsWith('/admin/'))) {
      expect(route.access, route.path).toBe(route.path.startsWith('/admin/teams') ? 'member' : 'admin');
    }
  });
});
