import { openLargeWorkspace } from './dataset';
import { startServer, buildService, serviceEnv, serviceArgs, BENCH_POOL_MAX, type RunningServer } from './processes';
import type { CannonJob } from './cannon';

/**
 * The cases the profiling scripts (cpu-profile.ts, alloc-profile.ts) hold at a fixed rate: getById
 * (800 req/s at 50 connections), the same lead from the bare Express ceiling, the list's first page
 * of 100 leads (300 req/s at 10), create (200 req/s at 10, into the writes workspace) and update
 * (a lead's notes, 150 req/s at 10, of the million-lead workspace's leads as bench/ratios.ts changes them).
 */
export const PROFILE_CASES = {
  getById: { rate: 800, connections: 50 },
  ceiling: { rate: 800, connections: 50 },
  list: { rate: 300, connections: 10 },
  create: { rate: 200, connections: 10 },
  update: { rate: 150, connections: 10 },
} as const;
export type ProfileCase = keyof typeof PROFILE_CASES;
/** A case's requests; the script sets the rate, connections and timing. */
export type ProfiledJob = Omit<CannonJob, 'connections' | 'rate' | 'warmupSeconds' | 'seconds'>;

export function profileCaseOf(name: string | undefined): ProfileCase {
  if (name === undefined || !(name in PROFILE_CASES)) throw new Error(`case: ${Object.keys(PROFILE_CASES).join(', ')}`);
  return name as ProfileCase;
}

/** Starts the case's server (ours compiled, or the ceiling under tsx) with `nodeArgs` and `env` added; answers it and its request. */
export async function startProfiledCase(
  which: ProfileCase,
  url: string,
  nodeArgs: string[],
  env: Record<string, string> = {},
): Promise<{ server: RunningServer; job: ProfiledJob }> {
  const { orgId, key, sample, writes, updateIds } = await openLargeWorkspace(url, { writes: true });
  const server = which === 'ceiling'
    ? await startServer('ceiling', [...nodeArgs, '--import', 'tsx', 'bench/servers/ceiling.ts'], { DATABASE_URL: url, DB_POOL_MAX: BENCH_POOL_MAX, ...env })
    : await startServer('ours', [...nodeArgs, ...serviceArgs(buildService())], { ...serviceEnv(url), ...env });
  const base = server.baseUrl;
  const tag = Date.now() % 1_000_000;
  const update: ProfiledJob = {
    url: `${base}/api/v1/rpc/leads.update`,
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    bodies: Array.from({ length: 5000 }, (_, i) => JSON.stringify({ json: { id: updateIds[i % updateIds.length], notes: `Profile ${tag} ${i}` } })),
  };
  const job: ProfiledJob = which === 'update' ? update : which === 'create'
    ? {
      url: `${base}/api/v1/rpc/leads.create`,
      method: 'POST',
      headers: { Authorization: `Bearer ${writes!.key}`, 'content-type': 'application/json' },
      bodies: Array.from({ length: 5000 }, (_, i) => JSON.stringify({ json: { name: `Profile ${tag} ${i}`, phone: `+4475${String(tag % 100).padStart(2, '0')}${String(i).padStart(6, '0')}` } })),
    }
    : which === 'ceiling'
      ? { url: `${base}/leads/${orgId}/${sample.leadId}` }
      : {
        url: which === 'list'
          ? `${base}/api/v1/leads?pageSize=100${process.env.PROFILE_LIST_QUERY ?? ''}`
          : `${base}/api/v1/rpc/leads.getById?input=${encodeURIComponent(JSON.stringify({ json: { id: sample.leadId } }))}`,
        headers: { Authorization: `Bearer ${key}` },
      };
  return { server, job };
}
