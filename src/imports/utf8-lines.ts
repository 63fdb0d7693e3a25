import { Transform, type TransformCallback } from 'node:stream';
import { isUtf8 } from 'node:buffer';
import { StringDecoder } from 'node:string_decoder';
import { AppError } from '../errors/app-error';
import { MAX_IMPORT_BYTES } from './import-format';

/**
 * The upload's bytes as UTF-8 text, checked as they stream: more than `maxBytes` is a 413; a
 * UTF-16 byte-order mark, or bytes that are not UTF-8 (a Latin-1 or Windows-1252 export), a 400
 * naming the line. A UTF-8 byte-order mark (what Excel writes) is dropped. Lines are counted
 * here, so the problem is named where it is; the text goes on as strings, never whole.
 */
export class Utf8Text extends Transform {
  private bytes = 0;
  private line = 1;
  private first = true;
  private readonly decoder = new StringDecoder('utf8');
  /** The last bytes of the previous chunk when they began a character that the next one ends. */
  private carry: Buffer = Buffer.alloc(0);

  constructor(private readonly maxBytes = MAX_IMPORT_BYTES) {
    super({ readableObjectMode: true });
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.bytes > this.maxBytes) return done(tooLarge(this.maxBytes));
    let bytes: Buffer = this.carry.length > 0 ? Buffer.concat([this.carry, chunk]) : chunk;
    if (this.first) {
      if (bytes.length < 3 && this.bytes < 3) {
        this.carry = bytes;
        return done();
      }
      this.first = false;
      if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) {
        return done(new AppError('BAD_REQUEST', 'line 1: the file is UTF-16 (it starts with a UTF-16 byte-order mark): save it as UTF-8 and send it again'));
      }
      if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) bytes = bytes.subarray(3);
    }
    const complete = bytes.length - incompleteTail(bytes);
    const whole = bytes.subarray(0, complete);
    this.carry = Buffer.from(bytes.subarray(complete));
    if (!isUtf8(whole)) return done(notUtf8(this.line + countLines(whole, firstInvalid(whole))));
    this.line += countLines(whole, whole.length);
    done(null, this.decoder.write(whole));
  }

  override _flush(done: TransformCallback): void {
    if (this.first && this.carry.length >= 2 && ((this.carry[0] === 0xff && this.carry[1] === 0xfe) || (this.carry[0] === 0xfe && this.carry[1] === 0xff))) {
      return done(new AppError('BAD_REQUEST', 'line 1: the file is UTF-16 (it starts with a UTF-16 byte-order mark): save it as UTF-8 and send it again'));
    }
    const rest = this.first && this.carry.length === 3 && this.carry[0] === 0xef && this.carry[1] === 0xbb && this.carry[2] === 0xbf
      ? Buffer.alloc(0) : this.carry;
    if (rest.length > 0 && !isUtf8(rest)) return done(notUtf8(this.line + countLines(rest, firstInvalid(rest))));
    const text = this.decoder.write(rest) + this.decoder.end();
    done(null, text.length > 0 ? text : undefined);
  }
}

export function tooLarge(maxBytes: number): AppError {
  return new AppError('PAYLOAD_TOO_LARGE', `The file is larger than ${Math.round(maxBytes / 1024 / 1024)} MB: split it into several imports`);
}

function notUtf8(line: number): AppError {
  return new AppError('BAD_REQUEST', `line ${line}: bytes that are not UTF-8 (a Latin-1 or Windows-1252 export?): save the file as UTF-8 and send it again`);
}

/** How many of the last bytes (0-3) start a character that is not complete yet. */
function incompleteTail(bytes: Buffer): number {
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const byte = bytes[bytes.length - back]!;
    if ((byte & 0xc0) === 0x80) continue; // a continuation byte: look further back
    const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return length > back ? back : 0;
  }
  return 0;
}

/** Where the first byte that breaks UTF-8 is (only called once the whole buffer failed). */
function firstInvalid(bytes: Buffer): number {
  let low = 0;
  let high = bytes.length;
  // The longest valid prefix, by halves: a valid prefix may end inside a character, so ends are widened by 3.
  while (high - low > 4) {
    const middle = (low + high) >> 1;
    if (isUtf8(bytes.subarray(0, middle - incompleteTail(bytes.subarray(0, middle))))) low = middle;
    else high = middle;
  }
  return low;
}

function countLines(bytes: Buffer, end: number): number {
  let lines = 0;
  for (let at = bytes.indexOf(0x0a); at !== -1 && at < end; at = bytes.indexOf(0x0a, at + 1)) lines++;
  return lines;
}
