import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { headersTooLarge, malformedRequest } from '../errors/request.js';
import { envelopeOf } from './envelope.js';

/**
 * What Node answers itself, before express sees a request (headers over 16 KiB, a request it
 * cannot parse), answered in the envelope too, with a `req_guid` of its own (Node's default is a
 * bare status line, which no client of the API can read).
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (!socket.writable || error.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const serviceError = error.code === 'HPE_HEADER_OVERFLOW' ? headersTooLarge() : malformedRequest();
  const body = JSON.stringify(envelopeOf(serviceError, randomUUID()));
  socket.end(
    `HTTP/1.1 ${serviceError.status} ${STATUS_CODES[serviceError.status]}\r\n` +
      `content-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}
