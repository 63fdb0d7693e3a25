import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { AppError } from '../errors/app-error';
import { httpStatusOf } from '../errors/error-codes';
import { errorText } from '../http/error-handler';

/** What Node's HTTP parser reports to `clientError` (its `HPE_*` codes come from llhttp). */
interface ClientError extends Error {
  code?: string;
  reason?: string;
  rawPacket?: Buffer;
}

/** The answer to each refusal, as Node's own handler chooses the status; other `HPE_*` codes are 400. */
function appErrorOf(error: ClientError, maxHeaderSize: number): AppError | undefined {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      // The request line counts toward the same limit, so a long URL is this 431 too, not a 414.
      return new AppError('REQUEST_HEADER_FIELDS_TOO_LARGE', `The request line and headers are over ${maxHeaderSize} bytes`);
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return new AppError('PAYLOAD_TOO_LARGE', 'The chunk extensions of the body are larger than the limit');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new AppError('TIMEOUT', 'The request was not received in time');
    default:
      if (!error.code?.startsWith('HPE_')) return undefined; // ECONNRESET and the like: nobody to answer
      return new AppError('BAD_REQUEST', `Malformed HTTP request: ${error.reason ?? 'the parser refused it'}`);
  }
}

const REQUEST_LINE = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+ (\/[^ ?\r\n]*)/;

/**
 * The path of the request line the refused bytes begin with, if they do. Node keeps only the
 * chunk it was parsing: a head over the limit spans several reads (the request line is gone),
 * and a timeout has no bytes at all; those answers take the REST body.
 */
export function requestPathOf(rawPacket: Buffer | undefined): string {
  if (!rawPacket) return '';
  return REQUEST_LINE.exec(rawPacket.subarray(0, 2048).toString('latin1'))?.[1] ?? '';
}

/**
 * `server.on('clientError')`: what Node's parser refuses (or times out) is answered as the app
 * would answer it, in JSON with `Connection: close`, and the connection is closed. Nothing is
 * written to a socket closed for writing, nor into the middle of an answer.
 */
export function clientErrorHandler(maxHeaderSize: number) {
  return (error: ClientError, socket: Duplex): void => {
    const appError = appErrorOf(error, maxHeaderSize);
    // The answer assigned to the socket (Node's own handler reads the same property): one begun
    // and not ended would be corrupted; one ended is followed by this one, as a pipelined answer.
    const inFlight = (socket as { _httpMessage?: { headersSent: boolean; writableEnded: boolean } | null })._httpMessage;
    if (appError && socket.writable && !(inFlight && inFlight.headersSent && !inFlight.writableEnded)) {
      const status = httpStatusOf(appError.code);
      const body = errorText(appError, requestPathOf(error.rawPacket));
      socket.write(
        `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n`
        + 'Content-Type: application/json; charset=utf-8\r\n'
        + `Content-Length: ${Buffer.byteLength(body)}\r\n`
        + 'X-Content-Type-Options: nosniff\r\n'
        + 'Connection: close\r\n\r\n'
        + body,
      );
    }
    socket.destroy();
  };
}
