import busboy from 'busboy';
import type { Request, Response } from 'express';

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
      /** The first file of a multipart body, on routes that take uploads; undefined otherwise. */
      uploadedFile?: MultipartFile;
    }
  }
}

export const isMultipart = (req: Request): boolean => /^multipart\/form-data\b/i.test(req.headers['content-type'] ?? '');

/** Room for the part headers and small fields around the file; beyond it the upload is refused. */
const ENVELOPE_BYTES = 64 * 1024;

/**
 * Reads the multipart/form-data body of a route that takes an upload (the route table's
 * `multipart` flag), after its shared checks (ADR 0063, 0080). Resolves with the first file, at
 * most `maxFileBytes` of it (`truncated` beyond), or undefined when the body holds no file or is
 * broken: no boundary, cut inside a part, connection gone. Never rejects and settles once; every
 * parser, file-stream and request error ends in that undefined, so the route answers a 4xx.
 * A body given up before its end (over the limit, malformed midway) is not read further.
 */
export function readMultipartFile(req: Request, res: Response, maxFileBytes: number): Promise<MultipartFile | undefined> {
  return new Promise((resolve) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: req.headers, limits: { files: 1, fileSize: maxFileBytes, fields: 20, fieldSize: 1024, parts: 25 } });
    } catch {
      // No boundary: no file. The body is not read; the connection closes after the answer.
      res.setHeader('connection', 'close');
      resolve(undefined);
      return;
    }
    let settled = false;
    let file: { field: string; chunks: Buffer[]; truncated: boolean } | undefined;
    let received = 0;
    const settle = (result: MultipartFile | undefined) => {
      if (settled) return;
      settled = true;
      req.off('data', count);
      resolve(result);
    };
    // Stops parsing (destroying the parser errors its open file stream: both have listeners
    // below). The rest of the body is not read: the connection closes after the answer.
    const abandon = (result: MultipartFile | undefined) => {
      req.unpipe(parser);
      parser.destroy();
      if (!req.complete && !res.headersSent) res.setHeader('connection', 'close');
      settle(result);
    };
    const count = (chunk: Buffer) => {
      received += chunk.length;
      if (received > maxFileBytes + ENVELOPE_BYTES) abandon({ field: file?.field ?? 'photo', content: Buffer.alloc(0), truncated: true });
    };

    parser.on('file', (field, stream) => {
      const current = { field, chunks: [] as Buffer[], truncated: false };
      file = current;
      stream.on('data', (chunk: Buffer) => current.chunks.push(chunk));
      stream.on('limit', () => {
        current.truncated = true;
      });
      // "Unexpected end of file" when the body ends inside this part; the parser errors too.
      stream.on('error', () => abandon(undefined));
    });
    parser.on('error', () => abandon(undefined));
    parser.on('close', () => settle(file && { field: file.field, content: Buffer.concat(file.chunks), truncated: file.truncated }));
    // A client gone mid-body never ends the pipe; without this the read would wait forever.
    req.on('close', () => {
      if (!req.complete) abandon(undefined);
    });
    req.on('error', () => abandon(undefined));
    req.on('data', count);
    req.pipe(parser);
  });
}
