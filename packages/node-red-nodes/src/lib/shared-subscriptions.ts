import type {
  ObservationClient,
  ObservationEvent,
  SubscribeOptions,
  Subscription,
} from '@observation-service/core';

/** Subscription state as core reports it. */
export type SubscriptionState = Subscription['state'];

/** What an events node wants to hear from the shared subscription it uses. */
export interface SubscriptionUser {
  /** A returned promise holds the stream (core's backpressure) until the event is handled. */
  onEvent(event: ObservationEvent, meta: { raw: unknown; source: 'live' | 'backfill' }): void | Promise<void>;
  onStateChange(state: SubscriptionState, info: unknown): void;
  onError(error: unknown): void;
}

/** Handle an events node holds while it uses a shared subscription. */
export interface SubscriptionLease {
  /** Core's cursor of the shared subscription: store it to catch up after a restart. */
  readonly cursor: Subscription['cursor'];
  readonly state: SubscriptionState;
  /** Leaves the subscription; the last user leaving closes it. */
  release(): Promise<void>;
}

interface Entry {
  subscription: Subscription;
  users: Set<SubscriptionUser>;
  lastState: SubscriptionState;
  lastInfo: unknown;
}

export type TaskSelection = number[] | 'all';

/** Same tasks, same key: order and duplicates of ids do not matter. */
export function selectionKey(selection: TaskSelection): string {
  if (selection === 'all') return 'all';
  return [...new Set(selection)].sort((a, b) => a - b).join(',');
}

/**
 * Connection sharing for one config node, in the manner of Node-RED's MQTT broker node: events
 * nodes with the same task selection share one core subscription, opened when the first of them
 * registers and closed when the last one leaves. The first user's catch-up options (`since`,
 * `maxLookBackMs`) open the subscription; later users join it as it is.
 */
export class SharedSubscriptions {
  readonly #entries = new Map<string, Entry>();
  readonly #closing = new Set<Promise<void>>();

  constructor(private readonly client: () => ObservationClient) {}

  /** Number of open core subscriptions (one per distinct task selection in use). */
  get size(): number {
    return this.#entries.size;
  }

  acquire(selection: TaskSelection, user: SubscriptionUser, options: SubscribeOptions): SubscriptionLease {
    const key = selectionKey(selection);
    let entry = this.#entries.get(key);
    if (entry) {
      entry.users.add(user);
      // A late joiner learns where the shared connection stands right away.
      user.onStateChange(entry.lastState, entry.lastInfo);
    } else {
      entry = this.#open(key, selection, user, options);
    }
    const held = entry;
    let released = false;
    return {
      get cursor() {
        return held.subscription.cursor;
      },
      get state() {
        return held.subscription.state;
      },
      release: async () => {
        if (released) return;
        released = true;
        held.users.delete(user);
        if (held.users.size > 0 || this.#entries.get(key) !== held) return;
        this.#entries.delete(key);
        await this.#close(held.subscription);
      },
    };
  }

  /** Closes every subscription (config node closing) and waits for the sockets to go. */
  async closeAll(): Promise<void> {
    const entries = [...this.#entries.values()];
    this.#entries.clear();
    for (const entry of entries) entry.users.clear();
    await Promise.all([...entries.map((entry) => this.#close(entry.subscription)), ...this.#closing]);
  }

  #open(key: string, selection: TaskSelection, first: SubscriptionUser, options: SubscribeOptions): Entry {
    const users = new Set<SubscriptionUser>([first]);
    // The entry exists before core can call back: subscribe() may report a state at once. It is
    // only registered once subscribe() succeeded (a bad config throws from client()).
    const entry = { users, lastState: 'connecting', lastInfo: undefined } as Entry;
    entry.subscription = this.client().events.subscribe(
      selection,
      {
        onEvent: async (event, meta) => {
          // Core moves the cursor once every user has handled the event.
          await Promise.all([...users].map((user) => user.onEvent(event, meta)));
        },
        onStateChange: (state, info) => {
          entry.lastState = state;
          entry.lastInfo = info;
          for (const user of [...users]) user.onStateChange(state, info);
        },
        onError: (error) => {
          for (const user of [...users]) user.onError(error);
        },
      },
      options,
    );
    this.#entries.set(key, entry);
    return entry;
  }

  #close(subscription: Subscription): Promise<void> {
    const closing = subscription.close().finally(() => this.#closing.delete(closing));
    this.#closing.add(closing);
    return closing;
  }
}
