import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ROUTES } from '../src/routes/table.js';

const inventory = fileURLToPath(new URL('../../../shared/spec/OPERATIONS.md', import.meta.url));

/**
 * Routes served beyond the 162 of OPERATIONS.md, each documented where it is decided: POST
 * /user/event (document 2 L, left out of the inventory), billing's checkout, which existing
 * clients call although the spec leaves it out (ADR 0142), the card provider's webhook, and the
 * entitlement token and revocation list (ADR 0246, 0248). Anything else outside the inventory
 * fails the count below.
 */
const BEYOND_INVENTORY = [
  'POST /user/event',
  'POST /payment',
  'POST /payment/calculate-price',
  'POST /promo-validation',
  // The card provider's signed events (ADR 0147).
  'POST /webhooks/cardprovider',
  // Entitlement tokens at the edge: a new token, the revocation list (ADR 0246, 0248).
  'POST /user/entitlement-token',
  'GET /entitlement-revocations',
];

describe('route table', () => {
  it('declares each method and path once: the inventory plus the documented routes beyond it', () => {
    const keys = ROUTES.map((route) => `${route.method} ${route.path}`);
    expect(new Set(keys).size).toBe(keys.length);
    for (const key of BEYOND_INVENTORY) expect(keys, key).toContain(key);
    expect(keys.length).toBe(162 + BEYOND_INVENTORY.length);
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
