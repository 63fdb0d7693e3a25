import { randomBytes } from 'node:crypto';
import type { EventType } from '../../events/event-types';
import { outputComponentSchemas } from '../../openapi/json-schema';
import { composeSample } from '../../openapi/sample';
import { eventSchemaName, typedEventSchemas } from '../events/typed-events.schema';

/** The type of a test event that stands for no event type: only says the endpoint is reachable. */
export const PING = 'ping';

const samples = new Map<string, Record<string, unknown>>();

/**
 * A sample `data` of `type`, built from the examples its event schema documents (the OpenAPI
 * document shows the same): fixed fake values, never a record of any workspace. Made once per type.
 */
function sampleDataOf(type: EventType): Record<string, unknown> {
  let data = samples.get(type);
  if (!data) {
    const schema = typedEventSchemas.find((s) => s.shape.type.value === type)!;
    const name = eventSchemaName(type);
    const components = outputComponentSchemas(new Map([[schema, name]]));
    const sample = composeSample(components[name]!, { root: { components: { schemas: components } } }) as { data: Record<string, unknown> };
    samples.set(type, (data = sample.data));
  }
  return data;
}

/**
 * A test event's body: shaped as a real event of `type` (or `ping`), with `test: true`, a fresh
 * `evt_test_` id, the caller's workspace and the service as its actor.
 */
export function testEventBody(orgId: string, type: EventType | typeof PING, now: Date): { id: string; type: string; body: string } {
  const id = `evt_test_${randomBytes(12).toString('base64url')}`;
  const data = type === PING ? { message: 'A test event from webhooks.sendTestEvent: your endpoint is reachable.' } : sampleDataOf(type);
  const body = JSON.stringify({ id, type, createdAt: now.toISOString(), orgId, actor: { kind: 'system', id: 'webhook-test' }, data, test: true });
  return { id, type, body };
}
