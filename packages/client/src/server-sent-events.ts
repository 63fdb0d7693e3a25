/** One Server-Sent Event: `event` is `message` when the stream names none. */
export interface ServerSentEvent {
  event: string;
  data: string;
  /** The `id:` of this event, when it had one. */
  id?: string;
}

/** The part of a fetch body the parser reads (a web ReadableStream of bytes). */
export interface ByteStream {
  getReader(): { read(): Promise<{ done: boolean; value?: Uint8Array }>; cancel(reason?: unknown): Promise<void>; releaseLock(): void };
}

/**
 * The events of a `text/event-stream` body, as the WHATWG parsing rules read it: lines end in CR,
 * LF or CRLF (also when a CR ends one chunk and its LF starts the next), `:` starts a comment, one
 * space after the colon is dropped, `data` lines join with LF, and a blank line dispatches (an
 * event with no data line is dropped). Ends when the body does; cancels the body when the reader
 * stops early.
 */
export async function* readServerSentEvents(body: ByteStream): AsyncGenerator<ServerSentEvent, void, undefined> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let event = '';
  let data: string[] | undefined;
  let id: string | undefined;
  let done = false;
  try {
    while (!done) {
      const chunk = await reader.read();
      done = chunk.done;
      buffer += done ? decoder.decode() : decoder.decode(chunk.value, { stream: true });
      let start = 0;
      for (;;) {
        const end = lineEnd(buffer, start, done);
        if (end === undefined) break;
        const line = buffer.slice(start, end.at);
        start = end.next;
        if (line === '') {
          if (data !== undefined) yield { event: event || 'message', data: data.join('\n'), ...(id === undefined ? {} : { id }) };
          event = '';
          data = undefined;
          id = undefined;
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon === -1 ? line : line.slice(0, colon);
        let value = colon === -1 ? '' : line.slice(colon + 1);
        if (value.startsWith(' ')) value = value.slice(1);
        if (field === 'event') event = value;
        else if (field === 'data') (data ??= []).push(value);
        else if (field === 'id' && !value.includes('\0')) id = value;
      }
      buffer = buffer.slice(start);
    }
  } finally {
    if (!done) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

/** Where the line starting at `from` ends and the next begins; undefined while its end has not arrived. */
function lineEnd(text: string, from: number, final: boolean): { at: number; next: number } | undefined {
  for (let i = from; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 10) return { at: i, next: i + 1 };
    if (ch === 13) {
      // A CR at the end of what has arrived may be the first half of a CRLF.
      if (i + 1 === text.length && !final) return undefined;
      return { at: i, next: text.charCodeAt(i + 1) === 10 ? i + 2 : i + 1 };
    }
  }
  return undefined;
}
