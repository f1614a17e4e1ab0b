import { Metadata, status as GrpcStatus, type ServiceError as GrpcServiceError } from '@grpc/grpc-js';
import { internalError, peerDeadlineExceeded, peerExhausted, peerFailed, peerUnavailable } from './common.js';
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
  const serviceError = error instanceof ServiceError ? error : internalError();
  const metadata = new Metadata();
  metadata.set(ERROR_METADATA_KEY, Buffer.from(JSON.stringify(serviceError.toJSON())));
  return { code: grpcCodeForHttpStatus(serviceError.status), details: serviceError.code, metadata };
}

/** The error for a gRPC failure that carries no ServiceError (transport problems). */
function transportError(code: GrpcStatus | undefined): ServiceError {
  switch (code) {
    case GrpcStatus.DEADLINE_EXCEEDED:
      return peerDeadlineExceeded();
    case GrpcStatus.UNAVAILABLE:
      return peerUnavailable();
    case GrpcStatus.RESOURCE_EXHAUSTED:
      return peerExhausted();
    default:
      return peerFailed();
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
  return transportError(error.code);
}
