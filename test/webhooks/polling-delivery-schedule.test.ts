/** The embedded delivery schedule (the store polled) against the shared DeliverySchedule contract, on SQLite. */
import { openDatabase } from '../../src/persistence/sqlite/database.ts';
import { SqliteWebhookStore } from '../../src/persistence/sqlite/sqlite-webhook-store.ts';
import { PollingDeliverySchedule } from '../../src/webhooks/polling-delivery-schedule.ts';
import { deliveryScheduleContract } from '../contracts/delivery-schedule.contract.ts';

deliveryScheduleContract('store polling (SQLite)', async () => {
  const db = openDatabase(':memory:');
  const store = new SqliteWebhookStore(db);
  return {
    store,
    // A slow poll: what the contract checks must come from adds, wake-ups and start-up, not the safety net.
    open: async () => new PollingDeliverySchedule(store, { pollIntervalMs: 60_000 }),
    // A process that dies leaves its claims 'sending'; a stop whose aborted attempts do nothing does the same.
    crash: (schedule) => schedule.stop(0),
    close: async () => db.close(),
  };
});
