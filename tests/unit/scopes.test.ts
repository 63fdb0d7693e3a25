import { KNOWN_SCOPES } from '../../src/auth/scopes';
import { procedures, subscriptions } from '../../src/procedures';

describe('KNOWN_SCOPES, what a key can be given', () => {
  it('is exactly the scopes of the procedures exposed to the API', () => {
    const exposed = new Set(procedures.filter((p) => p.exposed).map((p) => p.scope));
    expect([...KNOWN_SCOPES].sort()).toEqual([...exposed].sort());
  });

  it("holds every exposed subscription's scope", () => {
    for (const s of subscriptions.filter((s) => s.exposed)) expect(KNOWN_SCOPES).toContain(s.scope);
  });
});
