import { createTestDb, testDatabaseUrl } from '../helpers/test-app';
import { unique } from '../helpers/factories';
import { sleep, until } from '../helpers/poll';
import { createNotificationListener, type ListenerState } from '../../src/live/notification-listener';

const db = createTestDb(2);
afterAll(() => db.destroy());

/** A channel of this test alone (test files run in parallel on one database). */
const channelName = (label: string) => unique(label).replace('-', '_');
const notify = (channel: string, payload: string) => db.raw('select pg_notify(?, ?)', [channel, payload]);

describe("the process's LISTEN connection", () => {
  it('hands each subscriber the NOTIFYs of its channel, on channels subscribed before it connects and after', async () => {
    const listener = createNotificationListener({ url: testDatabaseUrl(), db });
    const [early, late] = [channelName('early'), channelName('late')];
    const heard: string[] = [];
    listener.subscribe(early, (payload) => heard.push(`early ${payload}`));
    listener.start();
    try {
      expect(await until(() => listener.isLive(), 5000)).toBe(true);
      const stopLate = listener.subscribe(late, (payload) => heard.push(`late ${payload}`));
      await sleep(100); // its LISTEN has run
      await notify(early, '1');
      await notify(late, '2');
      expect(await until(() => heard.length === 2, 2000)).toBe(true);
      stopLate();
      await notify(late, '3');
      await notify(early, '4');
      expect(await until(() => heard.length === 3, 2000)).toBe(true);
      await sleep(100);
      expect(heard).toEqual(['early 1', 'late 2', 'early 4']);
    } finally {
      await listener.stop();
    }
  });

  it('tells its watchers when it is lost and live again', async () => {
    const applicationName = unique('wsapi-listener');
    const listener = createNotificationListener({ url: testDatabaseUrl(), db, applicationName, retryDelayMs: { min: 50, max: 50 } });
    const states: ListenerState[] = [];
    listener.watch((state) => states.push(state));
    listener.start();
    try {
      expect(await until(() => listener.isLive(), 5000)).toBe(true);
      await db.raw('select pg_terminate_backend(pid) from pg_stat_activity where application_name = ?', [applicationName]);
      expect(await until(() => states.length === 3, 5000)).toBe(true);
      expect(states).toEqual(['live', 'lost', 'live']);
    } finally {
      await listener.stop();
    }
  });

  it('refuses a channel name it would have to quote', () => {
    const listener = createNotificationListener({ url: testDatabaseUrl(), db });
    expect(() => listener.subscribe('workspace changes; drop table x', () => undefined)).toThrow(/cannot listen/);
  });
});
