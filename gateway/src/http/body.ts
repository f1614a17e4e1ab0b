import type { NextFunction, Request, Response } from 'express';
import qs from 'qs';
import { requestTooLarge } from '../errors/request.js';
import { isMultipart } from './multipart.js';

/** What the body decoder found; operations read it through their request schema (http/request.ts). */
export interface DecodedBody {
  /** Decoded JSON value, or undefined when there was no JSON body. */
  json: unknown;
  /** Form fields, or undefined when the body was not form-encoded. */
  form: Record<string, unknown> | undefined;
  /** True when a JSON body was sent but could not be parsed. */
  malformed: boolean;
  /**
   * The body's text as received, for the one route that verifies a signature over its bytes
   * (POST /webhooks/cardprovider, ADR 0147); undefined where no body was read.
   */
  raw?: string;
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace -- express's own augmentation point
  namespace Express {
    interface Request {
      decoded: DecodedBody;
    }
  }
}

const EMPTY: DecodedBody = { json: undefined, form: undefined, malformed: false };

/**
 * No operation takes JSON nested deeper than a few levels; far deeper bodies would overflow the
 * stack of the protobuf encoder on the way to a service (a 500), so they count as malformed and
 * each operation answers its own malformed-body error.
 */
export const MAX_JSON_DEPTH = 32;

/** True when `value` nests objects or arrays deeper than `max` (iterative: any depth is safe). */
function nestsDeeperThan(value: unknown, max: number): boolean {
  const pending: Array<[unknown, number]> = [[value, 0]];
  while (pending.length > 0) {
    const [current, depth] = pending.pop()!;
    if (current === null || typeof current !== 'object') continue;
    if (depth >= max) return true;
    for (const child of Object.values(current)) pending.push([child, depth + 1]);
  }
  return false;
}

function decode(contentType: string, text: string): DecodedBody {
  // Clients send `Content-Type: application/json` on bodiless POST/PUT: that means no body.
  if (text.trim() === '') return EMPTY;
  const type = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  if (type === 'application/x-www-form-urlencoded') {
    return { json: undefined, form: qs.parse(text, { depth: 5, parameterLimit: 1000 }) as Record<string, unknown>, malformed: false };
  }
  if (type === 'application/json' || type.endsWith('+json') || type === '' || type === 'text/plain') {
    try {
      const json = JSON.parse(text) as unknown;
      if (nestsDeeperThan(json, MAX_JSON_DEPTH)) return { json: undefined, form: undefined, malformed: true };
      return { json, form: undefined, malformed: false };
    } catch {
      return { json: undefined, form: undefined, malformed: true };
    }
  }
  return EMPTY;
}

const declaresBody = (req: Request): boolean =>
  req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0');

const parseLimit = (limit: string): number => {
  const match = /^(\d+)(b|kb|mb)$/i.exec(limit);
  const units: Record<string, number> = { b: 1, kb: 1024, mb: 1024 * 1024 };
  return match ? Number(match[1]) * (units[match[2]!.toLowerCase()] ?? 1) : 1024 * 1024;
};

export interface BodyDecoderOptions {
  /**
   * The route takes uploads: a multipart body is left unread here, for the route to read after
   * its shared checks within its own limit (http/multipart.ts, ADR 0080). Elsewhere a multipart
   * body is one more type no operation decodes, held to the limit like any other.
   */
  leaveMultipart?: boolean;
}

/**
 * Reads the body once per request, before the shared checks, without ever rejecting it: a
 * missing or malformed body is not a shared error, because each operation documents its own
 * (document 1). Only a body over `limit` is refused (413), without keeping more of it.
 */
export function bodyDecoder(limit: string, options: BodyDecoderOptions = {}) {
  const maxBytes = parseLimit(limit);
  return (req: Request, _res: Response, next: NextFunction): void => {
    req.decoded = EMPTY;
    // A GET is read only when it declares a body (the localization reads take `ip` from JSON).
    if (req.method === 'HEAD' || req.method === 'OPTIONS' || (req.method === 'GET' && !declaresBody(req))) return next();
    if (options.leaveMultipart && isMultipart(req)) return next();
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes && !failed) {
        failed = true;
        next(requestTooLarge(limit));
        req.resume();
        return;
      }
      if (!failed) chunks.push(chunk);
    });
    req.on('end', () => {
      if (failed) return;
      const text = Buffer.concat(chunks).toString('utf8');
      req.decoded = { ...decode(req.headers['content-type'] ?? '', text), raw: text };
      next();
    });
    req.on('error', (error) => {
      if (!failed) next(error);
    });
  };
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** The request's fields where an operation accepts JSON and form alike: form fields win. */
export function bodyFields(req: Request): Record<string, unknown> {
  const json = isObject(req.decoded.json) ? req.decoded.json : {};
  return { ...json, ...(req.decoded.form ?? {}) };
}

/** The JSON body as an object, or undefined when absent, malformed or not an object. */
export function jsonObject(req: Request): Record<string, unknown> | undefined {
  return isObject(req.decoded.json) ? req.decoded.json : undefined;
}
