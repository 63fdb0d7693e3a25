/** `Authorization: Bearer <credential>`: one scheme, any case, one credential without spaces. */
const BEARER = /^Bearer +(\S+) *$/i;

/** The credential of a Bearer Authorization header; undefined when the header is absent or not one. */
export function bearerCredentialOf(authorization: string | undefined): string | undefined {
  return authorization === undefined ? undefined : BEARER.exec(authorization)?.[1];
}
