import { createMintLimiter } from '../../src/http/playground-mint-limit';

/** The per-member limit on minting playground tokens (finding 5), on a clock the test moves. */
describe('createMintLimiter', () => {
  function limiter(limit = 3) {
    let now = 1_000_000;
    const mints = createMintLimiter({ limit, windowMs: 60_000, now: () => now });
    return { mints, advance: (ms: number) => { now += ms; } };
  }

  it('allows `limit` mints per window, then refuses with the whole seconds left until the window ends', async () => {
    const { mints, advance } = limiter();
    const taken = [await mints.take('m1'), await mints.take('m1'), await mints.take('m1')];
    expect(taken.map((v) => [v.allowed, v.remaining])).toEqual([[true, 2], [true, 1], [true, 0]]);
    advance(20_500);
    expect(await mints.take('m1')).toEqual({ allowed: false, remaining: 0, resetSeconds: 40 });
  });

  it('opens a new window once the old one has ended', async () => {
    const { mints, advance } = limiter(1);
    await mints.take('m1');
    advance(60_000);
    expect((await mints.take('m1')).allowed).toBe(true);
  });

  it('counts each key apart', async () => {
    const { mints } = limiter(1);
    expect((await mints.take('m1')).allowed).toBe(true);
    expect((await mints.take('m2')).allowed).toBe(true);
    expect((await mints.take('m1')).allowed).toBe(false);
  });

  it('lets a mint through when its store cannot answer (the rate limits fail open)', async () => {
    const mints = createMintLimiter({ limit: 1, counter: { hit: async () => undefined } });
    expect([(await mints.take('m1')).allowed, (await mints.take('m1')).allowed]).toEqual([true, true]);
  });
});
