import { createClient, type ObservationClient, type Subscription } from '@observation-service/core';
import { now, until } from './clock.ts';
import type { SimulatorAddresses } from './simulator-process.ts';

/**
 * The subject client of the realtime figures: core's subscription with everything on
 * (normalization, dedupe window, cursor, backpressure queue), counting in its handler.
 */
export class CoreClient {
  received = 0;
  lastAt = 0;
  checksum = 0;
  readonly times = new Map<number, number>();
  recordTimes = false;

  readonly client: ObservationClient;
  readonly subscription: Subscription;

  private constructor(client: ObservationClient, subscription: Subscription) {
    this.client = client;
    this.subscription = subscription;
  }

  static async subscribe(
    sim: SimulatorAddresses,
    options: Parameters<ObservationClient['events']['subscribe']>[2] = {},
  ): Promise<CoreClient> {
    const client = createClient({
      url: sim.siteUrl,
      serviceId: sim.serviceId,
      form: 'extended',
      auth: { token: sim.token },
    });
    let self: CoreClient | undefined;
    const subscription = client.events.subscribe(
      'all',
      {
        onEvent(event) {
          const me = self as CoreClient;
          const id = event.id as number;
          me.checksum += id;
          me.received++;
          me.lastAt = now();
          if (me.recordTimes) me.times.set(id, me.lastAt);
        },
      },
      options,
    );
    self = new CoreClient(client, subscription);
    await until(() => subscription.state === 'open', 'the subscription to open', 30_000);
    return self;
  }

  reset(): void {
    this.received = 0;
    this.checksum = 0;
    this.times.clear();
  }

  close(): Promise<void> {
    return this.client.close();
  }
}
