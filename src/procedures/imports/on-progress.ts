import { defineSubscription } from '../../rpc/define-subscription';
import * as importsQueries from '../../db/imports';
import { idOf, objectOf } from '../shared/fields';
import { importOutput } from './import.schema';
import { importsGetById, noSuchImport } from './get-by-id';

/** How often a watched import is read again when no wake-up came (a worker on another instance, a wake-up lost). */
const POLL_MS = 1000;

export const importsOnProgress = defineSubscription({
  name: 'imports.onProgress',
  scope: importsGetById.scope,
  exposed: true,
  description: 'The import now, then again each time its counts or status move (at most about once a second), until it has ended.',
  input: objectOf({ id: idOf('imp') }),
  output: importOutput,
  tracked: false,
  async open({ ctx, input, sink }) {
    const read = async () => {
      const row = await importsQueries.getById(ctx.db, ctx.orgId, input.id);
      return row && importsQueries.toImport(row);
    };
    const first = await read();
    if (!first) throw noSuchImport(input.id);
    sink.next(first);
    let last = JSON.stringify(first);
    let ended = first.status !== 'queued' && first.status !== 'running';
    const deliver = (current: importsQueries.Import | undefined) => {
      if (!current || ended) return;
      const json = JSON.stringify(current);
      if (json === last) return;
      last = json;
      ended = current.status !== 'queued' && current.status !== 'running';
      sink.next(current);
    };
    // Each committed batch wakes the workspace's readers; readers of one import share its read.
    const unwatch = ctx.live.refresh.watch(ctx.orgId, `import ${input.id}`, read, { deliver });
    const poll = setInterval(() => {
      if (ended) return;
      read().then(deliver, (err: unknown) => sink.error(err));
    }, POLL_MS);
    poll.unref();
    return () => {
      clearInterval(poll);
      unwatch();
    };
  },
});
