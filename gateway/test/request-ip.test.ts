import { request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bodyDecoder } from '../src/http/body.js';
import { resolveRequestIp } from '../src/http/request-ip.js';
import { queryOrJsonText, rawRequestOf } from '../src/http/request.js';

/** The request-IP rule of document 2, B (ADR 0031) and GET bodies, through a real express app. */
describe('request IP and GET bodies', () => {
  const servers: Server[] = [];
  const ports = new Map<number, number>();

  beforeAll(async () => {
    for (const trustProxy of [0, 1, 2]) {
      const app = express();
      app.set('trust proxy', trustProxy);
      app.set('query parser', 'extended');
      app.use(bodyDecoder('1kb'));
      app.get('/ip', (req, res) => {
        res.json({ ip: resolveRequestIp(req), param: queryOrJsonText(rawRequestOf(req), 'ip'), decoded: req.decoded });
      });
      const server = await new Promise<Server>((resolve) => {
        const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
      });
      servers.push(server);
      ports.set(trustProxy, (server.address() as AddressInfo).port);
    }
  });
  afterAll(async () => {
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  });

  const get = (trustProxy: number, headers: Record<string, string>, body?: string, path = '/ip') =>
    new Promise<{ ip: string; param: string; decoded: { json: unknown; malformed: boolean } }>((resolve, reject) => {
      const request = httpRequest(
        {
          host: '127.0.0.1',
          port: ports.get(trustProxy),
          path,
          method: 'GET',
          headers: body === undefined ? headers : { ...headers, 'content-length': Buffer.byteLength(body) },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
        },
      );
      request.on('error', reject);
      request.end(body);
    });

  it('takes the last entry of the plugin-forwarded header first', async () => {
    const headers = { 'x-plugin-forwarded-for': '198.51.100.1, 203.0.113.5 ', 'x-forwarded-for': '203.0.113.9' };
    for (const trust of [0, 1, 2]) expect((await get(trust, headers)).ip).toBe('203.0.113.5');
  });

  it('takes the last X-Forwarded-For entry without a trusted proxy and with one', async () => {
    const headers = { 'x-forwarded-for': '198.51.100.1, 198.51.100.2, 203.0.113.9' };
    expect((await get(0, headers)).ip).toBe('203.0.113.9');
    expect((await get(1, headers)).ip).toBe('203.0.113.9');
  });

  it('walks back one entry per trusted hop when TRUST_PROXY is above one', async () => {
    expect((await get(2, { 'x-forwarded-for': '198.51.100.1, 198.51.100.2, 203.0.113.9' })).ip).toBe('198.51.100.2');
  });

  it('falls back to the remote address, without the IPv4-mapped prefix', async () => {
    expect((await get(0, {})).ip).toBe('127.0.0.1');
    expect((await get(0, { 'x-plugin-forwarded-for': ' , ', 'x-forwarded-for': '' })).ip).toBe('127.0.0.1');
    expect((await get(0, { 'x-forwarded-for': '::ffff:203.0.113.4' })).ip).toBe('203.0.113.4');
  });

  it('reads a GET body only when one is declared; the query wins over it', async () => {
    const none = await get(0, {});
    expect(none.decoded).toEqual({ malformed: false });
    const withBody = await get(0, { 'content-type': 'application/json' }, '{"ip": "203.0.113.1"}');
    expect(withBody.decoded.json).toEqual({ ip: '203.0.113.1' });
    expect(withBody.param).toBe('203.0.113.1');
    expect((await get(0, { 'content-type': 'application/json' }, '{"ip": "203.0.113.1"}', '/ip?ip=203.0.113.2')).param).toBe('203.0.113.2');
    const malformed = await get(0, { 'content-type': 'application/json' }, '{oops');
    expect(malformed.decoded.malformed).toBe(true);
    expect(malformed.param).toBe('');
    expect((await get(0, {}, '{"ip": 5}')).param).toBe('');
  });
});
