/**
 * @observation-service/simulator: a faithful stand-in Observation Service for offline flow
 * development, tests, benchmarks and demos.
 */
export type { EmitOptions, MediaReadyAt, SimulatorControl, SimulatorStats } from './control.js';
export type { HistoryOrder, HistoryTies } from './events/event-log.js';
export { basicPayload, extendedPayload, type PayloadOptions } from './events/payload-forms.js';
export { HISTORY_LIMIT_MAX, LIST_LIMIT_MAX } from './http/api-routes.js';
export { writeCameraFrame } from './media/camera-frame.js';
export {
  OUTLINE_WIDTH,
  pixelBox,
  SNAPSHOT_COLOURS,
  SNAPSHOT_HEIGHT,
  SNAPSHOT_WIDTH,
} from './media/snapshot-renderer.js';
export { DEFAULT_CREDENTIALS, type HistoryTasks, type SimulatorOptions } from './options.js';
/** The simulator's seeded generator (floats in [0, 1)): tests draw reproducible kill points etc. from it. */
export { mulberry32 as seededRandom } from './random.js';
export {
  type CameraLatency,
  type LatePublication,
  type MediaDelay,
  REALISM_LEVELS,
  REALISM_PRESETS,
  type Realism,
  type RealismSettings,
  type ResponseLatency,
} from './realism.js';
export { HUGE_FRAME_BYTES, MALFORMED_KINDS, type MalformedKind } from './realtime/malformed-frames.js';
export { type Simulator, startSimulator, type WorldView } from './simulator.js';
/** Alias of {@link SimulatedEvent} matching the contract's `Event` name. */
export type {
  BasicEventPayload,
  Coordinates,
  DetectedObject,
  EventMedia,
  EventType,
  ExtendedEventPayload,
  Form,
  Location,
  Organization,
  SchedulerKind,
  SimulatedEvent,
  SimulatedEvent as Event,
  SimulatorForm,
  Task,
  TaskEvent,
  TaskListItem,
  TaskScheduler,
  VlmAnswer,
  VlmResult,
  Zone,
} from './types.js';
export { TASK_STATUSES } from './world/catalog.js';
export type { TaskInput } from './world/world-state.js';
