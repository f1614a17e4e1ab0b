import busboy from 'busboy';
import type { NextFunction, Request, Response } from 'express';

/** The one file of a multipart/form-data request, as far as the limit allowed. */
export interface MultipartFile {
  field: string;
  content: Buffer;
  /** True when the file was longer than the limit: `content` is cut and must not be used. */
  truncated: boolean;
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace -- express's own augmentation point
  namespace Express {
    interface Request {
      /** The first file of a multipart body; undefined for other bodies or none sent. */
      uploadedFile?: MultipartFile;
    }
  }
}

export const isMultipart = (req: Request): boolean => /^multipart\/form-data\b/i.test(req.headers['content-type'] ?? '');

/**
 * Reads a multipart/form-data body with busboy, keeping at most `maxFileBytes` of its first file
 * and no other part (photo upload, ADR 0063). Never rejects: the route decides, after its shared
 * checks, what a missing or over-long file means. Other content types pass untouched.
 */
export function multipartDecoder(maxFileBytes: number) {
  // Room for the part headers and small fields around the file; beyond it the upload is refused.
  const maxBodyBytes = maxFileBytes + 64 * 1024;
  return (req: Request, res: Response, next: NextFunction): void => {
    if (!isMultipart(req) || req.method === 'GET') return next();
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: req.headers, limits: { files: 1, fileSize: maxFileBytes, fields: 20, fieldSize: 1024, parts: 25 } });
    } catch {
      // A multipart type without a boundary: treated as no file.
      req.resume();
      return next();
    }
    let done = false;
    let file: { field: string; chunks: Buffer[]; truncated: boolean } | undefined;
    const finish = () => {
      if (done) return;
      done = true;
      if (file) req.uploadedFile = { field: file.field, content: Buffer.concat(file.chunks), truncated: file.truncated };
      next();
    };
    parser.on('file', (field, stream) => {
      const current = { field, chunks: [] as Buffer[], truncated: false };
      file = current;
      stream.on('data', (chunk: Buffer) => current.chunks.push(chunk));
      stream.on('limit', () => {
        current.truncated = true;
      });
    });
    parser.on('close', finish);
    // A body far over the limit is not read to its end: the answer comes now and the
    // connection closes after it.
    let received = 0;
    req.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received <= maxBodyBytes || done) return;
      file = { field: file?.field ?? 'photo', chunks: [], truncated: true };
      req.unpipe(parser);
      res.setHeader('connection', 'close');
      finish();
    });
    // A malformed body counts as no file; the rest of the request is drained.
    parser.on('error', () => {
      req.unpipe(parser);
      req.resume();
      finish();
    });
    req.pipe(parser);
  };
}
