export type {
  DeploymentForm,
  RealtimeClock,
  RealtimeContext,
  RealtimeHistoryQuery,
  RealtimeLogger,
  RealtimeWebSocketConstructor,
} from './context.js';
export type { PositionStore, StoredPosition, StreamPosition } from './position.js';
export { createSubscription } from './subscription.js';
export type {
  EventMeta,
  StateChangeInfo,
  SubscribeOptions,
  Subscription,
  SubscriptionHandlers,
  SubscriptionState,
  SubscriptionStats,
  TaskSelection,
} from './types.js';
