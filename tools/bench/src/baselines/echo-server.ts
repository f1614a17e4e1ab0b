// Baseline (b), far side: a raw @grpc/grpc-js server with one unary method that answers every
// call with a fixed payload of the size of the catalog's ListPlans answer. No protobuf, no
// interceptors, no database: what one hop costs and nothing else.
// Usage: node echo-server.js <port> <payload-bytes>
import { Server, ServerCredentials, type sendUnaryData, type ServerUnaryCall } from '@grpc/grpc-js';

import { ECHO_METHOD } from './echo-method.js';

const [port, bytes] = process.argv.slice(2).map(Number);
if (!Number.isInteger(port) || !Number.isInteger(bytes)) throw new Error('usage: echo-server <port> <payload-bytes>');
const payload = Buffer.alloc(bytes!, 'x');

const server = new Server();
server.addService(
  { Echo: ECHO_METHOD },
  {
    Echo: (_call: ServerUnaryCall<Buffer, Buffer>, callback: sendUnaryData<Buffer>) => callback(null, payload),
  },
);
server.bindAsync(`127.0.0.1:${port}`, ServerCredentials.createInsecure(), (error) => {
  if (error) throw error;
});
process.on('SIGTERM', () => server.tryShutdown(() => process.exit(0)));
