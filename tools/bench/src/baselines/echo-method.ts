import type { MethodDefinition } from '@grpc/grpc-js';

const raw = (bytes: Buffer): Buffer => bytes;

/** The echo baseline's one unary method; messages are raw bytes (no protobuf). */
export const ECHO_METHOD: MethodDefinition<Buffer, Buffer> = {
  path: '/masthead.bench.Echo/Echo',
  requestStream: false,
  responseStream: false,
  requestSerialize: raw,
  requestDeserialize: raw,
  responseSerialize: raw,
  responseDeserialize: raw,
};
