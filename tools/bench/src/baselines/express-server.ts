// Baselines (a) and (b), near side: a bare express 5 app (the gateway's version) with
//   GET /plans    the same JSON as the gateway's GET /plans, from memory;
//   GET /one-hop  one raw @grpc/grpc-js unary call to the echo server, then the same JSON.
// No middleware, no logging, no checks: the floor an endpoint of one hop is compared with.
// Usage: node express-server.js <port> <json-file> <echo-address>
import { readFileSync } from 'node:fs';

import { Client, credentials, Metadata, type ServiceError } from '@grpc/grpc-js';
import express from 'express';

import { ECHO_METHOD } from './echo-method.js';

const [portText, jsonFile, echoAddress] = process.argv.slice(2);
const port = Number(portText);
if (!Number.isInteger(port) || !jsonFile || !echoAddress) throw new Error('usage: express-server <port> <json-file> <echo-address>');
const body: unknown = JSON.parse(readFileSync(jsonFile, 'utf8'));

// The gateway also sets a deadline on every call (5 s by default); so does the baseline.
const DEADLINE_MS = 5_000;
const channel = new Client(echoAddress, credentials.createInsecure());
const request = Buffer.from('{}');

const callEcho = (): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    channel.makeUnaryRequest(
      ECHO_METHOD.path,
      ECHO_METHOD.requestSerialize,
      ECHO_METHOD.responseDeserialize,
      request,
      new Metadata(),
      { deadline: Date.now() + DEADLINE_MS },
      (error: ServiceError | null, response?: Buffer) =>
        error || !response ? reject(error ?? new Error('no response')) : resolve(response),
    );
  });

const app = express();
app.disable('x-powered-by');
app.get('/plans', (_req, res) => {
  res.json(body);
});
app.get('/one-hop', (_req, res, next) => {
  callEcho().then(() => res.json(body), next);
});
// Ready once the echo server answers too.
app.get('/ready', (_req, res) => {
  callEcho().then(
    () => res.json({ status: 'ready' }),
    () => res.status(503).json({ status: 'waiting' }),
  );
});
const server = app.listen(port, '127.0.0.1');
server.keepAliveTimeout = 65_000;
process.on('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
