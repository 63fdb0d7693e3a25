import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { createInFlightResponses, type InFlightResponses } from '../../src/server/in-flight-responses';

/** A real (unconnected) ServerResponse: the tracker only listens for its 'close'. */
const newResponse = () => new ServerResponse(new IncomingMessage(new Socket()));
const listed = (inFlight: InFlightResponses) => {
  const seen: ServerResponse[] = [];
  inFlight.forEach((res) => seen.push(res));
  return seen;
};

describe('in-flight responses (what a drain marks Connection: close)', () => {
  it('lists an answer from add until its close event, and no longer', () => {
    const inFlight = createInFlightResponses();
    const [a, b, c] = [newResponse(), newResponse(), newResponse()];
    [a, b, c].forEach((res) => inFlight.add(res));
    b.emit('close');
    expect(listed(inFlight)).toEqual([a, c]);
    expect(inFlight.size).toBe(2);
    a.emit('close');
    c.emit('close');
    expect(listed(inFlight)).toEqual([]);
    expect(inFlight.size).toBe(0);
  });

  it('reuses freed slots: after thousands of answers, three at a time, it holds three slots', () => {
    const inFlight = createInFlightResponses();
    for (let round = 0; round < 2000; round++) {
      const batch = [newResponse(), newResponse(), newResponse()];
      batch.forEach((res) => inFlight.add(res));
      batch.forEach((res) => res.emit('close'));
    }
    expect(inFlight.capacity).toBe(3);
    expect(inFlight.size).toBe(0);
  });

  it('ignores a second close of an answer whose slot another answer now holds', () => {
    const inFlight = createInFlightResponses();
    const first = newResponse();
    inFlight.add(first);
    first.emit('close');
    const second = newResponse();
    inFlight.add(second); // takes the slot `first` freed
    first.emit('close');
    expect(listed(inFlight)).toEqual([second]);
    expect(inFlight.size).toBe(1);
    expect(inFlight.capacity).toBe(1);
  });
});
