import { createMintLimiter } from '../../src/http/playground-mint-limit';

/** The per-member limit on minting playground tokens (finding 5), on a clock the test moves. */
describe('createMintLimiter', () => {
  function limiter(limit = 3) {
    let now = 1_000_000;
    const mints = createMintLimiter({ limit, windowMs: 60_000, now: () => now });
    return { mints, advance: (ms: number) => { now += ms; } };
  }

  it('allows `limit` mints per window, then refuses with the whole seconds left until the window ends', () => {
    const { mints, advance } = limiter();
    expect([mints.take('m1'), mints.take('m1'), mints.take('m1')].map((v) => [v.allowed, v.remaining])).toEqual([[true, 2], [true, 1], [true, 0]]);
    advance(20_500);
    expect(mints.take('m1')).toEqual({ allowed: false, remaining: 0, resetSeconds: 40 });
  });

  it('opens a new window once the old one has ended', () => {
    const { mints, advance } = limiter(1);
    mints.take('m1');
    advance(60_000);
    expect(mints.take('m1').allowed).toBe(true);
  });

  it('counts each key apart', () => {
    const { mints } = limiter(1);
    expect(mints.take('m1').allowed).toBe(true);
    expect(mints.take('m2').allowed).toBe(true);
    expect(mints.take('m1').allowed).toBe(false);
  });

  it('forgets windows that have ended, so members who stopped minting take no memory', () => {
    const { mints, advance } = limiter();
    for (let i = 0; i < 1000; i++) mints.take(`m${i}`);
    advance(61_000);
    mints.take('late');
    expect(mints.size()).toBe(1);
  });
});
