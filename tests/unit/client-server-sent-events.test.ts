import { readServerSentEvents, type ServerSentEvent } from '../../packages/client/src/server-sent-events';
import { reviveEvent } from '../../packages/client/src';

/** A body that arrives in these chunks, as a fetch body does. */
function body(...chunks: string[]) {
  const encoder = new TextEncoder();
  let next = 0;
  let cancelled = false;
  return {
    cancelled: () => cancelled,
    getReader: () => ({
      read: async () => (next < chunks.length ? { done: false, value: encoder.encode(chunks[next++]!) } : { done: true }),
      cancel: async () => {
        cancelled = true;
      },
      releaseLock: () => undefined,
    }),
  };
}

async function all(...chunks: string[]): Promise<ServerSentEvent[]> {
  const out: ServerSentEvent[] = [];
  for await (const event of readServerSentEvents(body(...chunks))) out.push(event);
  return out;
}

describe('readServerSentEvents', () => {
  it("reads tRPC's frames: connected, a value with its id, ping, return", async () => {
    const stream = 'event: connected\ndata: {"reconnectAfterInactivityMs":30000}\n\ndata: {"json":{"id":"evt_1"}}\nid: evt_1\n\nevent: ping\ndata: \n\nevent: return\ndata: \n\n';
    expect(await all(stream)).toEqual([
      { event: 'connected', data: '{"reconnectAfterInactivityMs":30000}' },
      { event: 'message', data: '{"json":{"id":"evt_1"}}', id: 'evt_1' },
      { event: 'ping', data: '' },
      { event: 'return', data: '' },
    ]);
  });

  it('reads lines split anywhere across chunks, CRLF split between two chunks included, and multi-byte characters split in two', async () => {
    const zoe = Buffer.from('Zoë');
    const decoded: string[] = [];
    // The ë (two bytes) split between reads: a decoder that is not streaming would garble it.
    const split = { getReader: () => {
      const parts = [Buffer.from('data: '), zoe.subarray(0, 3), zoe.subarray(3), Buffer.from('\r'), Buffer.from('\n\r\n')];
      let i = 0;
      return { read: async () => (i < parts.length ? { done: false, value: new Uint8Array(parts[i++]!) } : { done: true }), cancel: async () => undefined, releaseLock: () => undefined };
    } };
    for await (const event of readServerSentEvents(split)) decoded.push(event.data);
    expect(decoded).toEqual(['Zoë']);
    expect(await all('data: a\r', '\ndata: b\r\n', '\r\n')).toEqual([{ event: 'message', data: 'a\nb' }]);
  });

  it('ignores comments and unknown fields, keeps one leading space only, drops an event without data and one cut off at the end', async () => {
    expect(await all(': hello\nretry: 10\nevent: x\n\ndata:  two spaces\nfoo: bar\n\ndata: unfinished')).toEqual([{ event: 'message', data: ' two spaces' }]);
  });

  it('cancels the body when the reader stops early', async () => {
    const source = body('data: 1\n\ndata: 2\n\n');
    for await (const event of readServerSentEvents(source)) {
      expect(event.data).toBe('1');
      break;
    }
    expect(source.cancelled()).toBe(true);
  });
});

describe('reviveEvent', () => {
  it("revives the date-times of the event's type, in data.object and the details, leaving null and other text alone", () => {
    const event = reviveEvent({
      id: 'evt_1', type: 'lead.call_logged', createdAt: '2026-12-10T15:00:00.000Z', orgId: 'org_1', actor: { kind: 'apiKey', id: 'key_1' },
      data: {
        object: { id: 'lead_1', notes: '2026-12-10T15:00:00.000Z', nextCallAt: null, createdAt: '2026-11-20T14:05:00.000Z', updatedAt: '2026-11-26T09:30:00.000Z' },
        call: { id: 'call_1', createdAt: '2026-11-26T09:30:00.000Z', nextCallAt: '2026-12-03T10:00:00.000Z' },
      },
    }) as any;
    expect(event.createdAt).toEqual(new Date('2026-12-10T15:00:00.000Z'));
    expect(event.data.object.createdAt).toEqual(new Date('2026-11-20T14:05:00.000Z'));
    expect(event.data.call.nextCallAt).toEqual(new Date('2026-12-03T10:00:00.000Z'));
    expect([event.data.object.nextCallAt, event.data.object.notes]).toEqual([null, '2026-12-10T15:00:00.000Z']);
  });

  it('revives a whole embedded client, and leaves a reference by id as it is (lead.converted)', () => {
    const whole = reviveEvent({ id: 'e', type: 'lead.converted', createdAt: new Date(), data: { object: { id: 'l' }, client: { id: 'cli_1', createdAt: '2026-11-20T14:05:00.000Z' } } }) as any;
    expect(whole.data.client.createdAt).toBeInstanceOf(Date);
    const reference = reviveEvent({ id: 'e', type: 'lead.converted', createdAt: new Date(), data: { object: { id: 'l' }, client: { id: 'cli_1' } } }) as any;
    expect(reference.data.client).toEqual({ id: 'cli_1' });
  });
});
