import { Metadata, status } from '@grpc/grpc-js';
import type { ServiceError as GrpcServiceError } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { fromGrpcError, isDependencyFailure, ServiceError, toGrpcError } from '../src/errors/index.js';
const httpError = (status: number, code: string, description: string) => new ServiceError({ status, code, description });

const asReceived = (sent: Partial<GrpcServiceError>): GrpcServiceError =>
  Object.assign(new Error(sent.details), {
    code: sent.code,
    details: sent.details ?? '',
    metadata: sent.metadata ?? new Metadata(),
  }) as GrpcServiceError;

describe('error transport', () => {
  it('carries status, code, description and fields across gRPC', () => {
    const original = new ServiceError({
      status: 409,
      code: '"invalid_customer_id"',
      description: 'Kunde – ungültig',
      fields: { email: 'bad' },
    });
    const sent = toGrpcError(original);
    expect(sent.code).toBe(status.FAILED_PRECONDITION);
    const received = fromGrpcError(asReceived(sent));
    expect(received.toJSON()).toEqual(original.toJSON());
  });

  it('maps HTTP statuses to meaningful gRPC codes', () => {
    expect(toGrpcError(httpError(401, 'x', 'y')).code).toBe(status.UNAUTHENTICATED);
    expect(toGrpcError(httpError(403, 'x', 'y')).code).toBe(status.PERMISSION_DENIED);
    expect(toGrpcError(httpError(404, 'x', 'y')).code).toBe(status.NOT_FOUND);
    expect(toGrpcError(httpError(406, 'x', 'y')).code).toBe(status.INVALID_ARGUMENT);
  });

  it('hides unknown errors behind an opaque internal error', () => {
    const received = fromGrpcError(asReceived(toGrpcError(new Error('connection string mongodb://secret@host'))));
    expect(received.status).toBe(500);
    expect(received.description).not.toContain('secret');
  });

  it('describes transport failures without a payload', () => {
    expect(fromGrpcError(asReceived({ code: status.UNAVAILABLE, details: 'down' })).status).toBe(503);
    expect(fromGrpcError(asReceived({ code: status.DEADLINE_EXCEEDED, details: 'slow' })).status).toBe(504);
  });
});

describe('dependency failures (docs/adr/0181)', () => {
  const named = (name: string, message = '') => Object.assign(new Error(message), { name });

  it('recognises an unreachable database: driver transport errors and FerretDB without its PostgreSQL', () => {
    expect(isDependencyFailure(named('MongoServerSelectionError', 'connect ECONNREFUSED 127.0.0.1:27017'))).toBe(true);
    expect(isDependencyFailure(named('MongoNetworkError', 'connection 3 to 127.0.0.1:27017 closed'))).toBe(true);
    expect(isDependencyFailure(named('MongoPoolClearedError'))).toBe(true);
    const ferretdb =
      '[msg_find.go:344 handler.handleMaxTimeMSError] failed to connect to `user=masthead database=postgres`: dial tcp 127.0.0.1:40223: connect: connection refused';
    expect(isDependencyFailure(named('MongoServerError', ferretdb))).toBe(true);
    expect(isDependencyFailure(named('MongoServerError', 'FATAL: the database system is starting up'))).toBe(true);
  });

  it('leaves refused operations, programming errors and non-errors alone', () => {
    expect(isDependencyFailure(named('MongoServerError', 'E11000 duplicate key error'))).toBe(false);
    expect(isDependencyFailure(new TypeError('x is undefined'))).toBe(false);
    expect(isDependencyFailure(httpError(409, 'conflict', 'refused'))).toBe(false);
    expect(isDependencyFailure('connection refused')).toBe(false);
    expect(isDependencyFailure(null)).toBe(false);
  });
});
