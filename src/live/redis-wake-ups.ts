import { Redis } from 'ioredis';
import type { WakeUps, WakeUpTransport } from './wake-ups';

export const REDIS_WAKE_UPS_CHANNEL = 'wsapi:workspace-changes';

/**
 * Wake-ups through Redis pub/sub (REDIS_URL): two connections, one to publish, one subscribed.
 * Pub/sub keeps nothing for a subscriber that was away, so every reconnection wakes every reader.
 */
export function redisTransport(url: string, wakeUps: () => WakeUps): WakeUpTransport {
  const publisher = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
  const subscriber = new Redis(url, { maxRetriesPerRequest: null });
  // Failures are retried by ioredis and seen through `send`; its own printing is noise.
  publisher.on('error', () => undefined);
  subscriber.on('error', () => undefined);
  let subscribedOnce = false;
  subscriber.on('ready', () => {
    if (subscribedOnce) wakeUps().wakeAll();
    subscribedOnce = true;
  });
  void subscriber.subscribe(REDIS_WAKE_UPS_CHANNEL).catch(() => undefined);
  subscriber.on('message', (_channel: string, payload: string) => wakeUps().receive(payload));
  return {
    send: async (payload) => void (await publisher.publish(REDIS_WAKE_UPS_CHANNEL, payload)),
    async close() {
      publisher.disconnect();
      subscriber.disconnect();
    },
  };
}
