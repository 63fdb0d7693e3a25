import { createSecretKey } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { testJwtKeys } from '../helpers/test-secrets';
import { signMemberSession, verifyMemberSession, authenticateMemberSession, MEMBER_SESSION_TTL_SECONDS } from '../../src/auth/member-session';
import { signPlaygroundToken, verifyPlaygroundToken } from '../../src/auth/playground-token';
import { AppError } from '../../src/errors/app-error';

const keys = testJwtKeys;
const who = { memberId: 'mem_a', orgId: 'org_a' };

function b64url(value: object): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

function errorOf(fn: () => unknown): AppError {
  try {
    fn();
  } catch (err) {
    return err as AppError;
  }
  throw new Error('expected a throw');
}

describe('playground tokens', () => {
  it('signs a token that expires exactly 3600 s after it was issued, with its scopes, member, workspace and id', () => {
    const issued = signPlaygroundToken(keys.token, { ...who, scopes: ['leads.read'] });
    const claims = jwt.decode(issued.token) as Record<string, unknown>;

    expect(claims).toMatchObject({ sub: 'mem_a', org: 'org_a', typ: 'playground', scopes: ['leads.read'], jti: issued.id });
    expect((claims.exp as number) - (claims.iat as number)).toBe(3600);
    expect(issued.expiresAt.getTime()).toBe((claims.exp as number) * 1000);
    expect(verifyPlaygroundToken(keys.token, issued.token)).toEqual({ id: issued.id, ...who, scopes: ['leads.read'], expiresAt: issued.expiresAt });
  });

  it('refuses an expired token with 401 saying it has expired', () => {
    const old = signPlaygroundToken(keys.token, { ...who, scopes: [] }, Date.now() - 3601_000);
    const err = errorOf(() => verifyPlaygroundToken(keys.token, old.token));
    expect(err).toMatchObject({ code: 'UNAUTHORIZED', message: 'The playground token has expired' });
  });

  it('refuses a token whose payload was changed after signing', () => {
    const [header, , signature] = signPlaygroundToken(keys.token, { ...who, scopes: ['leads.read'] }).token.split('.');
    const now = Math.floor(Date.now() / 1000);
    const forged = b64url({ sub: 'mem_a', org: 'org_a', typ: 'playground', scopes: ['leads.delete'], jti: 'tok_x', iat: now, exp: now + 3600 });
    expect(errorOf(() => verifyPlaygroundToken(keys.token, `${header}.${forged}.${signature}`))).toMatchObject({ code: 'UNAUTHORIZED', message: 'Invalid playground token' });
  });

  it('refuses a token signed with another secret', () => {
    const other = createSecretKey(Buffer.from('another-secret-of-at-least-thirty-two-chars'));
    const token = signPlaygroundToken(other, { ...who, scopes: [] }).token;
    expect(errorOf(() => verifyPlaygroundToken(keys.token, token)).code).toBe('UNAUTHORIZED');
  });

  it('refuses an unsigned alg:none token and one signed with HS512', () => {
    const now = Math.floor(Date.now() / 1000);
    const payload = { sub: 'mem_a', org: 'org_a', typ: 'playground', scopes: ['leads.read'], jti: 'tok_x', iat: now, exp: now + 3600 };
    const none = `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url(payload)}.`;
    const hs512 = jwt.sign(payload, keys.token, { algorithm: 'HS512' });
    expect(errorOf(() => verifyPlaygroundToken(keys.token, none)).code).toBe('UNAUTHORIZED');
    expect(errorOf(() => verifyPlaygroundToken(keys.token, hs512)).code).toBe('UNAUTHORIZED');
  });

  it('refuses a member session as a token even when both are signed with the same secret (typ differs)', () => {
    const session = signMemberSession(keys.token, who).token;
    expect(errorOf(() => verifyPlaygroundToken(keys.token, session)).code).toBe('UNAUTHORIZED');
  });
});

describe('member sessions', () => {
  it('signs a 12-hour session for a member and workspace that verifies back', () => {
    const session = signMemberSession(keys.session, who);
    const claims = jwt.decode(session.token) as { exp: number; iat: number };

    expect(claims.exp - claims.iat).toBe(MEMBER_SESSION_TTL_SECONDS);
    expect(verifyMemberSession(keys.session, session.token)).toEqual({ ...who, expiresAt: session.expiresAt });
  });

  it('refuses a playground token as a session even when both are signed with the same secret', () => {
    const token = signPlaygroundToken(keys.session, { ...who, scopes: [] }).token;
    expect(errorOf(() => verifyMemberSession(keys.session, token))).toMatchObject({ code: 'UNAUTHORIZED', message: 'Invalid member session' });
  });

  it('refuses an API key, a missing header and another scheme before verifying anything', () => {
    expect(errorOf(() => authenticateMemberSession(keys.session, `Bearer wsk_${'a'.repeat(40)}`)).message).toMatch(/API key cannot open the developer page/);
    expect(errorOf(() => authenticateMemberSession(keys.session, undefined)).message).toMatch(/^Missing Authorization header/);
    expect(errorOf(() => authenticateMemberSession(keys.session, 'Basic abc')).message).toMatch(/^Malformed Authorization header/);
  });

  it('refuses an expired session', () => {
    const old = signMemberSession(keys.session, who, Date.now() - (MEMBER_SESSION_TTL_SECONDS + 1) * 1000);
    expect(errorOf(() => verifyMemberSession(keys.session, old.token)).message).toBe('The member session has expired');
  });
});
