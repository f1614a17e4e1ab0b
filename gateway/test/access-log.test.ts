import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '@masthead/core/logging';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessLog } from '../src/http/access-log.js';

/** The access log never writes a one-time login token (GET /auth/external/{token}, ADR 0057). */
describe('access log', () => {
  const lines: Array<Record<string, unknown>> = [];
  const logger = { info: (line: Record<string, unknown>) => lines.push(line) } as unknown as Logger;
  let server: Server;
  let base: string;

  beforeAll(async () => {
    const app = express();
    app.use(accessLog(logger));
    app.get('/api/v1/*path', (_req, res) => {
      res.json({});
    });
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const loggedPath = async (path: string) => {
    lines.length = 0;
    await fetch(`${base}${path}`);
    for (let i = 0; i < 100 && lines.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    return lines[0]?.['path'];
  };

  it('writes the login token path as a template, and other paths as they are', async () => {
    const token = 'Zm9vYmFyYmF6cXV4cXV1eGZvb2JhcmJhenF1eHF1dXhmb29i';
    expect(await loggedPath(`/api/v1/auth/external/${token}`)).toBe('/api/v1/auth/external/{token}');
    expect(await loggedPath(`/api/v1/auth/external/${token}?x=1`)).toBe('/api/v1/auth/external/{token}');
    expect(await loggedPath('/api/v1/plans/3')).toBe('/api/v1/plans/3');
  });
});
