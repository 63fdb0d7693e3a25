import { isPublicAddress, webhookHostProblem, webhookUrlPolicyFor, webhookUrlProblem } from '../../src/webhooks/url-safety';
import { EMBEDDED_IPV4_FORMS } from '../helpers/ssrf-forms';

describe('webhookUrlPolicyFor', () => {
  it('is production unless NODE_ENV is explicitly development or test', () => {
    expect([webhookUrlPolicyFor('production'), webhookUrlPolicyFor(undefined), webhookUrlPolicyFor('staging'), webhookUrlPolicyFor('development'), webhookUrlPolicyFor('test')])
      .toEqual(['production', 'production', 'production', 'development', 'development']);
  });
});

describe('webhookUrlProblem', () => {
  it.each(['production', 'development'] as const)('accepts an https URL with a public host under %s', (policy) => {
    expect(webhookUrlProblem('https://hooks.example.com/crm?x=1', policy)).toBeUndefined();
    expect(webhookUrlProblem('https://93.184.216.34:8443/in', policy)).toBeUndefined();
  });

  it.each(['production', 'development'] as const)('refuses what is not an absolute http(s) URL, credentials and fragments under %s', (policy) => {
    expect(webhookUrlProblem('not a url', policy)).toBe('must be an absolute URL');
    expect(webhookUrlProblem('/relative/path', policy)).toBe('must be an absolute URL');
    expect(webhookUrlProblem('ftp://example.com/in', policy)).toBe('must be an https:// URL');
    expect(webhookUrlProblem('file:///etc/passwd', policy)).toBe('must be an https:// URL');
    expect(webhookUrlProblem('https://user:pass@example.com/', policy)).toBe('must not carry credentials');
    expect(webhookUrlProblem('https://example.com/#part', policy)).toBe('must not have a #fragment');
  });

  it('in development allows http only to a loopback host', () => {
    for (const url of ['http://localhost:4000/hook', 'http://127.0.0.1/hook', 'http://[::1]:8080/']) {
      expect({ url, problem: webhookUrlProblem(url, 'development') }).toEqual({ url, problem: undefined });
    }
    expect(webhookUrlProblem('http://example.com/hook', 'development')).toBe('must be https://, or http:// to localhost (development only)');
    expect(webhookUrlProblem('http://10.0.0.5/hook', 'development')).toMatch(/must be https:\/\//);
  });

  it('in development allows https to a private or loopback address (local receivers)', () => {
    expect(webhookUrlProblem('https://127.0.0.1/hook', 'development')).toBeUndefined();
    expect(webhookUrlProblem('https://10.0.0.5/hook', 'development')).toBeUndefined();
  });

  it('in production refuses http, even to localhost', () => {
    expect(webhookUrlProblem('http://localhost/hook', 'production')).toBe('must be an https:// URL');
    expect(webhookUrlProblem('http://example.com/hook', 'production')).toBe('must be an https:// URL');
  });

  it.each([
    ['loopback IPv4', 'https://127.0.0.1/hook'],
    ['loopback IPv6', 'https://[::1]/hook'],
    ['private 10/8', 'https://10.1.2.3/hook'],
    ['private 172.16/12', 'https://172.16.0.1/hook'],
    ['private 192.168/16', 'https://192.168.1.1/hook'],
    ['link-local (cloud metadata)', 'https://169.254.169.254/latest/meta-data'],
    ['IPv6 unique local', 'https://[fd00::1]/hook'],
    ['IPv6 link-local', 'https://[fe80::1]/hook'],
    ['IPv4-mapped loopback', 'https://[::ffff:127.0.0.1]/hook'],
    ['IPv4-mapped private', 'https://[::ffff:10.0.0.1]/hook'],
    ['unspecified', 'https://0.0.0.0/hook'],
    ['integer form of loopback', 'https://2130706433/hook'],
  ])('in production refuses a literal %s address', (_label, url) => {
    expect(webhookUrlProblem(url, 'production')).toBe('must not point at a private, loopback or link-local address');
  });

  it('in production accepts a literal public address, IPv4-mapped included', () => {
    expect(webhookUrlProblem('https://8.8.8.8/hook', 'production')).toBeUndefined();
    expect(webhookUrlProblem('https://[2001:4860:4860::8888]/hook', 'production')).toBeUndefined();
    expect(webhookUrlProblem('https://[::ffff:8.8.8.8]/hook', 'production')).toBeUndefined();
  });
});

describe('IPv6 forms that embed an IPv4 address, or are not globally routable', () => {
  it.each(EMBEDDED_IPV4_FORMS)('in production refuses %s %s, at save and at every delivery', (_form, host) => {
    expect(webhookUrlProblem(`https://${host}/h`, 'production')).toBe('must not point at a private, loopback or link-local address');
    // What a delivery's guarded DNS lookup judges each resolved address by.
    expect(isPublicAddress(new URL(`https://${host}/h`).hostname.slice(1, -1))).toBe(false);
  });
});

describe('isPublicAddress', () => {
  it('is true only for ordinary public unicast addresses', () => {
    expect(['8.8.8.8', '2001:4860:4860::8888', '::ffff:1.1.1.1'].map(isPublicAddress)).toEqual([true, true, true]);
    expect(['127.0.0.1', '10.0.0.1', '169.254.1.1', '100.64.0.1', '::1', 'fc00::1', '::ffff:192.168.0.1', '224.0.0.1', 'not-an-ip'].map(isPublicAddress))
      .toEqual([false, false, false, false, false, false, false, false, false]);
  });
});

describe('webhookHostProblem', () => {
  it('in production refuses localhost (it resolves to a loopback address)', async () => {
    expect(await webhookHostProblem('https://localhost/hook', 'production')).toBe('host localhost resolves to a private, loopback or link-local address');
  });

  it('in production judges a literal address without a lookup', async () => {
    expect(await webhookHostProblem('https://10.0.0.1/hook', 'production')).toBe('must not point at a private, loopback or link-local address');
    expect(await webhookHostProblem('https://[::1]/hook', 'production')).toBe('must not point at a private, loopback or link-local address');
    expect(await webhookHostProblem('https://8.8.8.8/hook', 'production')).toBeUndefined();
  });

  it('in development checks nothing (local receivers are allowed)', async () => {
    expect(await webhookHostProblem('https://localhost/hook', 'development')).toBeUndefined();
    expect(await webhookHostProblem('http://127.0.0.1/hook', 'development')).toBeUndefined();
  });
});
