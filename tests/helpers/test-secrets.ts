import { randomBytes } from 'node:crypto';
import { createJwtKeys, type JwtSecrets } from '../../src/auth/secrets';

/**
 * Drawn at random for each test process: no secret in the repository signs or verifies anything,
 * in tests either. Apps built in-process take these; a session or token signed with them is
 * accepted by those apps only.
 */
export const TEST_JWT_SECRETS: JwtSecrets = {
  SESSION_SECRET: randomBytes(32).toString('base64url'),
  TOKEN_SECRET: randomBytes(32).toString('base64url'),
};

export const testJwtKeys = createJwtKeys(TEST_JWT_SECRETS);
