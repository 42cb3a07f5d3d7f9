import {
  createClient,
  type ObservationClient,
  type SubscribeOptions,
  type Subscription,
} from '@observation-service/core';
import { type Counter, type LocalTally, localCounter } from './burst.ts';
import { now, until } from './clock.ts';
import type { SimulatorAddresses } from './simulator-process.ts';

/**
 * The subject client of the realtime figures: core's subscription with everything on
 * (normalization, dedupe window, cursor, backpressure queue), counting in its handler.
 */
export class CoreClient {
  readonly client: ObservationClient;
  readonly subscription: Subscription;
  readonly tally: LocalTally;
  readonly counter: Counter;

  private constructor(client: ObservationClient, subscription: Subscription, tally: LocalTally) {
    this.client = client;
    this.subscription = subscription;
    this.tally = tally;
    this.counter = localCounter(tally);
  }

  static async subscribe(sim: SimulatorAddresses, options: SubscribeOptions = {}): Promise<CoreClient> {
    const client = createClient({
      url: sim.siteUrl,
      serviceId: sim.serviceId,
      form: 'extended',
      auth: { token: sim.token },
    });
    const tally: LocalTally = { received: 0, lastAt: 0, recordTimes: false, ids: [], times: [] };
    let checksum = 0;
    const subscription = client.events.subscribe(
      'all',
      {
        onEvent(event) {
          const id = event.id as number;
          checksum += id;
          tally.received++;
          tally.lastAt = now();
          if (tally.recordTimes) {
            tally.ids.push(id);
            tally.times.push(tally.lastAt);
          }
        },
      },
      options,
    );
    await until(() => subscription.state === 'open', 'the subscription to open', 30_000);
    if (checksum < 0) throw new Error('unreachable: keeps the checksum in use');
    return new CoreClient(client, subscription, tally);
  }

  close(): Promise<void> {
    return this.client.close();
  }
}
