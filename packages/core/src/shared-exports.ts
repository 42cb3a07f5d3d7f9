// Everything core offers that runs on any host: no Node built-in, no global timer, no HTTP or
// WebSocket library. Both entry points re-export it; each adds its own `createClient`
// (index.ts: Node defaults; portable.ts: the host passes its ports). Every name exported here is
// described in README.md ("Everything the package exports"; test/readme-exports.test.ts checks it).

// Client

export type { ServiceAddresses } from './addresses.js';
export { resolveAddresses } from './addresses.js';
export type { AuthOptions, TokenRequest } from './auth/token-provider.js';
export type { EventsApi, MediaApi, ObservationClient } from './client/build-client.js';
export type { ClientForm, ClientOptions } from './client/options.js';
export type { RetryOptions } from './http/request.js';
export type { LocationsApi, RequestOptions } from './resources/locations.js';
export type { TasksApi } from './resources/tasks.js';

// Reads

export type { CappedHistory } from './history/capped-history.js';
export type { EventType } from './model/event-type.js';
export type { Location } from './model/location.js';
export type {
  MultiPolygon,
  TaskDetail,
  TaskEvent,
  TaskScheduler,
  TaskSummary,
  Zone,
} from './model/task.js';
export type {
  CollectHistoryOptions,
  HistoryOptions,
  HistoryProblem,
  RawHistoryOptions,
} from './resources/events.js';
export type { HistoryFilters, LocationFilters, TaskFilters } from './resources/filter-types.js';
export type { LatestEventOptions } from './resources/latest-event.js';
export type { TaskStatus, TaskStatusCategory } from './task-status.js';
export { parseTaskStatus } from './task-status.js';

// What hosts show: the service's tasks, locations and event types in the event's camelCase

export type { EventTypeOutput } from './output/event-type-output.js';
export { eventTypeOutput } from './output/event-type-output.js';
export type { LocationOutput } from './output/location-output.js';
export { locationOutput } from './output/location-output.js';
export type {
  TaskEventOutput,
  TaskOutput,
  TaskSchedulerOutput,
} from './output/task-output.js';
export { taskOutput } from './output/task-output.js';

// Task health watch

export type { TaskWatchSource } from './task-watch/create-task-watcher.js';
export { createTaskWatcher } from './task-watch/create-task-watcher.js';
export type { TaskChanges } from './task-watch/task-changes.js';
export type {
  TaskWatch,
  TaskWatchEvent,
  TaskWatchEventType,
  TaskWatchHandlers,
  TaskWatchOptions,
  TaskWatchState,
  TaskWatchStats,
} from './task-watch/types.js';

// Realtime

export type { FirstEvent, FirstEventOptions } from './client/first-event.js';
export type { EventFilter, EventFilterInput, EventFilterLabels } from './filter/event-filter.js';
export { matchesEventFilter, matchingObjects, parseEventFilter } from './filter/event-filter.js';
export type {
  CloseOptions,
  EventBatch,
  EventMeta,
  GivenUp,
  Outage,
  OutageReason,
  Recovery,
  StateChangeInfo,
  SubscribeOptions,
  Subscription,
  SubscriptionHandlers,
  SubscriptionState,
  SubscriptionStats,
  SubscriptionStatus,
  SubscriptionTarget,
  TaskSelection,
} from './realtime/index.js';
export { batchIdentity, eventIdentity, outageOf } from './realtime/index.js';

// The event model

export type {
  DetectedObject,
  GeoCoordinates,
  NormalizedBox,
  NormalizeResult,
  ObservationEvent,
  VlmAnswer,
  VlmResult,
} from './model/observation-event.js';
export type {
  RawBasicEvent,
  RawDetectedObject,
  RawEvent,
  RawExtendedEvent,
  RawVlmResult,
} from './model/raw-event.js';
export type { CornerBox, PixelBox } from './normalize/boxes.js';
export { toCornerBox, toPixelBox } from './normalize/boxes.js';
export { normalizeEvent } from './normalize/normalize-event.js';

// Media and annotated snapshots

export { annotateSnapshot } from './annotate/annotate-snapshot.js';
export type { AnnotatedSnapshotOptions } from './annotate/annotated-snapshot.js';
export type { EventImage, EventMedia, SubscribeMediaOptions } from './media/event-media.js';
export type { DownloadOptions, MediaDownload, MediaKind, MediaSource } from './media-download.js';

// Errors

export { AuthError } from './errors/auth-error.js';
export { HttpError } from './errors/http-error.js';
export { MediaMissingError, type MediaName } from './errors/media-missing-error.js';
export { NetworkError } from './errors/network-error.js';
export type { ObservationErrorCode } from './errors/observation-error.js';
export { ObservationError, observationErrorCodes } from './errors/observation-error.js';
export { ProtocolError } from './errors/protocol-error.js';
export { TimeoutError } from './errors/timeout-error.js';
export { ValidationError } from './errors/validation-error.js';

// Validation and helpers (shared with the host adapters, so messages and keys are the same everywhere)

export { stableHash } from './stable-hash.js';
export type { ThrottledStatus, ThrottledStatusOptions } from './status/throttled-status.js';
export { createThrottledStatus } from './status/throttled-status.js';
export { describeValue } from './validation/describe-value.js';
export { type IdInput, parseId } from './validation/parse-id.js';
export { type IdListInput, parseIdList } from './validation/parse-id-list.js';
export { parseLimit, parseOffset } from './validation/parse-limit.js';
export { parseTime, type TimeInput } from './validation/parse-time.js';

// Ports (what a host may give instead of core's defaults; see README "Ports")

export type {
  AnnotatedSnapshot,
  AnnotateOptions,
  Annotator,
  Clock,
  HttpRequest,
  HttpResponse,
  HttpTransport,
  Logger,
  PositionStore,
  StoredPosition,
  StoredTask,
  StoredTaskWatch,
  StreamPosition,
  TaskWatchStore,
  WebSocketConstructor,
} from './ports.js';
