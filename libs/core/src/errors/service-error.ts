/**
 * The one error family of Masthead. A domain module throws a ServiceError carrying the HTTP
 * status and the spec's error code; the gRPC layer carries it across processes and the gateway
 * renders the spec's envelope from it. Anything else that escapes is an opaque 500.
 */
export type FieldErrors = Record<string, string>;

export interface ServiceErrorInit {
  status: number;
  code: string;
  description: string;
  /** Field validation messages; rendered as `{error: true, error_fields}`. */
  fields?: FieldErrors;
  /** Rendered as the exact body instead of the envelope, for the spec's odd cases (`[]`). */
  body?: unknown;
}

export class ServiceError extends Error {
  readonly status: number;
  readonly code: string;
  readonly description: string;
  readonly fields: FieldErrors | undefined;
  readonly body: unknown;

  constructor(init: ServiceErrorInit) {
    super(`${init.code}: ${init.description}`);
    this.name = 'ServiceError';
    this.status = init.status;
    this.code = init.code;
    this.description = init.description;
    this.fields = init.fields;
    this.body = init.body;
  }

  toJSON(): ServiceErrorInit {
    const init: ServiceErrorInit = { status: this.status, code: this.code, description: this.description };
    if (this.fields) init.fields = this.fields;
    if (this.body !== undefined) init.body = this.body;
    return init;
  }
}

export const isServiceError = (value: unknown): value is ServiceError => value instanceof ServiceError;
