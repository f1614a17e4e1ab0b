import { Metadata, status as GrpcStatus, type ServiceError as GrpcServiceError } from '@grpc/grpc-js';
import { ServiceError, type ServiceErrorInit } from './service-error.js';

/** Binary metadata key carrying the ServiceError as JSON (binary so that any text survives). */
export const ERROR_METADATA_KEY = 'masthead-error-bin';

/** The mapping table of DESIGN.md "Errors": HTTP status → gRPC code. */
export function grpcCodeForHttpStatus(httpStatus: number): GrpcStatus {
  switch (httpStatus) {
    case 400:
    case 406:
    case 422:
      return GrpcStatus.INVALID_ARGUMENT;
    case 401:
      return GrpcStatus.UNAUTHENTICATED;
    case 403:
      return GrpcStatus.PERMISSION_DENIED;
    case 404:
      return GrpcStatus.NOT_FOUND;
    case 409:
      return GrpcStatus.FAILED_PRECONDITION;
    case 429:
      return GrpcStatus.RESOURCE_EXHAUSTED;
    case 501:
      return GrpcStatus.UNIMPLEMENTED;
    case 503:
      return GrpcStatus.UNAVAILABLE;
    default:
      return httpStatus >= 500 ? GrpcStatus.INTERNAL : GrpcStatus.INVALID_ARGUMENT;
  }
}

/** Server side: turns a thrown value into the object grpc-js sends as the call's status. */
export function toGrpcError(error: unknown): Partial<GrpcServiceError> {
  const serviceError =
    error instanceof ServiceError ? error : new ServiceError({ status: 500, code: 'internal_error', description: 'Internal error' });
  const metadata = new Metadata();
  metadata.set(ERROR_METADATA_KEY, Buffer.from(JSON.stringify(serviceError.toJSON())));
  return { code: grpcCodeForHttpStatus(serviceError.status), details: serviceError.code, metadata };
}

/** HTTP status for a gRPC failure that carries no ServiceError (transport problems). */
function httpStatusForGrpcCode(code: GrpcStatus | undefined): number {
  switch (code) {
    case GrpcStatus.DEADLINE_EXCEEDED:
      return 504;
    case GrpcStatus.UNAVAILABLE:
      return 503;
    case GrpcStatus.RESOURCE_EXHAUSTED:
      return 429;
    default:
      return 500;
  }
}

/** Client side: recovers the ServiceError a peer raised, or describes the transport failure. */
export function fromGrpcError(error: GrpcServiceError): ServiceError {
  const raw = error.metadata?.get(ERROR_METADATA_KEY)[0];
  if (raw !== undefined) {
    try {
      const init = JSON.parse(Buffer.isBuffer(raw) ? raw.toString('utf8') : raw) as ServiceErrorInit;
      return new ServiceError(init);
    } catch {
      // fall through: a malformed payload is treated as a transport failure
    }
  }
  const status = httpStatusForGrpcCode(error.code);
  const code = status === 500 ? 'internal_error' : 'service_unavailable';
  return new ServiceError({ status, code, description: 'An internal service did not answer' });
}
