import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { loadConfig } from '../../src/config';

/** docker-compose.yml runs the service's own containers hardened, and stops them after their drain. */
const ROOT = join(__dirname, '..', '..');
type Service = Record<string, unknown> & { healthcheck?: { test?: string[]; disable?: boolean } };
const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as { services: Record<string, Service> };
const seconds = (value: unknown) => Number(/^(\d+)s$/.exec(String(value))?.[1]) * 1000;
const defaults = loadConfig({});

describe('docker-compose.yml', () => {
  it.each(['migrate', 'api', 'worker'])('runs %s read-only, without capabilities or new privileges, under memory and process limits', (name) => {
    const service = compose.services[name]!;
    expect(service).toMatchObject({ read_only: true, cap_drop: ['ALL'], security_opt: ['no-new-privileges:true'] });
    expect(service.mem_limit).toMatch(/^\d+m$/);
    expect(service.pids_limit).toEqual(expect.any(Number));
    expect(service).not.toHaveProperty('tmpfs');
  });

  it('gives the API longer than its drain (SHUTDOWN_TIMEOUT_MS plus closing the pool) and the worker longer than a delivery and its recording', () => {
    expect(seconds(compose.services.api!.stop_grace_period)).toBeGreaterThan(defaults.SHUTDOWN_TIMEOUT_MS + 5000);
    expect(seconds(compose.services.worker!.stop_grace_period)).toBeGreaterThan(defaults.WEBHOOK_TIMEOUT_MS + 2000);
  });

  it('checks the worker through its own /healthz on WORKER_HEALTH_PORT\'s default port', () => {
    const { healthcheck } = compose.services.worker!;
    expect(healthcheck?.disable).toBeUndefined();
    expect(healthcheck?.test?.join(' ')).toContain(`http://127.0.0.1:${defaults.WORKER_HEALTH_PORT}/healthz`);
  });
});
