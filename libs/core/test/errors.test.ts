import { Metadata, status } from '@grpc/grpc-js';
import type { ServiceError as GrpcServiceError } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { fromGrpcError, ServiceError, toGrpcError } from '../src/errors/index.js';
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
