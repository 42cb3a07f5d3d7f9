/** Builds the deterministic seeded world: organizations, locations, event types and tasks. */
import { hash2, Rng, round } from '../random.js';
import type {
  EventType,
  Location,
  Organization,
  SchedulerKind,
  Task,
  TaskEvent,
  TaskScheduler,
  Zone,
} from '../types.js';
import {
  CAMERA_PLACES,
  EVENT_KINDS,
  eventKindById,
  ORGANIZATION_NAMES,
  PLACES,
  TASK_STATUSES,
} from './catalog.js';

export interface SeededWorld {
  organizations: Organization[];
  locations: Location[];
  eventTypes: EventType[];
  tasks: Task[];
}

const SCHEDULER_KINDS: readonly SchedulerKind[] = ['24/7', 'daily', 'weekly'];
/** 12 tasks: every status (8) and every scheduler kind (3) appear, several tasks share a location. */
const TASK_COUNT = 12;

export function seedWorld(seed: number): SeededWorld {
  const rng = new Rng(hash2(seed, 0x5eed));
  const organizations = ORGANIZATION_NAMES.map((name, index) => ({ id: index + 1, name }));
  const locations: Location[] = PLACES.map((place, index) => ({
    id: 11 + index,
    name: place.name,
    timezone: place.timezone,
    organization_id: (index % organizations.length) + 1,
    coordinates: { ...place.coordinates },
  }));
  const eventTypes = EVENT_KINDS.map(({ id, name, description }) => ({ id, name, description }));
  const zoneIds = { next: 9001 };
  const tasks: Task[] = [];
  for (let index = 0; index < TASK_COUNT; index++) {
    const location = locations[index % locations.length] as Location;
    const locationIndex = index % locations.length;
    // Tasks 1 and 9, 2 and 10, … share a location; the odd ones of them share its camera too.
    const cameraId = 301 + locationIndex * 10 + (index >= locations.length && index % 2 === 0 ? 1 : 0);
    const firstKind = EVENT_KINDS[index % EVENT_KINDS.length]?.id ?? 2001;
    const kindIds = [firstKind];
    const extra = rng.int(0, 2);
    for (let n = 0; n < extra; n++) {
      const candidate = rng.pick(EVENT_KINDS).id;
      if (!kindIds.includes(candidate)) kindIds.push(candidate);
    }
    const schedulerKind = SCHEDULER_KINDS[index % SCHEDULER_KINDS.length] as SchedulerKind;
    const cameraPlace = rng.pick(CAMERA_PLACES);
    const task = buildTask(rng, zoneIds, {
      id: index + 1,
      name: `${location.name.split(' ')[0]} ${cameraPlace} ${index + 1}`,
      status: TASK_STATUSES[index % TASK_STATUSES.length] as string,
      schedulerKind,
      kindIds,
      location,
      cameraId,
    });
    // Some deployments add nested objects and extra fields to tasks; clients must pass them through.
    if (index % 3 === 2) {
      Object.assign(task, {
        camera: { id: cameraId, name: `${cameraPlace} camera` },
        location: { id: location.id, name: location.name },
      });
    }
    tasks.push(task);
  }
  return { organizations, locations, eventTypes, tasks };
}

export interface TaskBlueprint {
  id: number;
  name: string;
  status: string;
  schedulerKind: SchedulerKind;
  kindIds: number[];
  location: Location;
  cameraId: number;
}

export function buildTask(rng: Rng, zoneIds: { next: number }, blueprint: TaskBlueprint): Task {
  const events = blueprint.kindIds.map((kindId) => buildTaskEvent(rng, zoneIds, kindId));
  const objectNames = new Set<string>();
  for (const kindId of blueprint.kindIds) {
    for (const name of eventKindById(kindId)?.objects ?? []) objectNames.add(name);
  }
  const confidence_threshold: Record<string, number> = {};
  const object_size_filter: Record<string, number[]> = {};
  for (const name of objectNames) {
    confidence_threshold[name] = rng.float(0.3, 0.8, 2);
    object_size_filter[name] = [rng.float(0, 0.05, 2), rng.float(0, 0.05, 2), rng.float(0.6, 1, 2), 1];
  }
  return {
    id: blueprint.id,
    name: blueprint.name,
    status: blueprint.status,
    scheduler: buildScheduler(rng, blueprint.schedulerKind),
    events,
    location_id: blueprint.location.id,
    camera_id: blueprint.cameraId,
    camera_rtsp: `rtsp://10.${blueprint.location.organization_id}.${blueprint.location.id}.${blueprint.cameraId % 256}:554/live/cam${blueprint.cameraId}`,
    confidence_threshold,
    object_size_filter,
  };
}

function buildScheduler(rng: Rng, kind: SchedulerKind): TaskScheduler {
  if (kind === '24/7') return { type: kind, interval: 1, start_time: '00:00', end_time: '23:59' };
  const startHour = rng.int(5, 9);
  const endHour = rng.int(17, 22);
  return {
    type: kind,
    interval: kind === 'weekly' ? rng.int(1, 2) : 1,
    start_time: `${String(startHour).padStart(2, '0')}:${rng.pick(['00', '30'])}`,
    end_time: `${endHour}:${rng.pick(['00', '15', '45'])}`,
  };
}

function buildTaskEvent(rng: Rng, zoneIds: { next: number }, kindId: number): TaskEvent {
  const kind = eventKindById(kindId);
  const zones: Zone[] = [];
  const zoneCount = rng.int(1, 2);
  for (let n = 0; n < zoneCount; n++) zones.push(buildZone(rng, zoneIds.next++));
  return {
    id: kindId,
    name: kind?.name ?? `event_${kindId}`,
    detecting_duration: rng.pick([1, 2, 3, 5, 10]),
    detecting_threshold: rng.pick([0.3, 0.5, 0.7, 0.8]),
    interval: rng.pick([10, 30, 60, 300]),
    zones,
  };
}

/** A MultiPolygon of 1–2 convex polygons, sometimes with a hole; every ring repeats its first point. */
function buildZone(rng: Rng, id: number): Zone {
  const polygons: number[][][][] = [];
  const polygonCount = rng.int(1, 2);
  for (let p = 0; p < polygonCount; p++) {
    const cx = rng.float(0.25, 0.75);
    const cy = rng.float(0.25, 0.75);
    const radius = rng.float(0.1, 0.24);
    const outer = ring(rng, cx, cy, radius, rng.int(4, 7));
    const rings = [outer];
    if (rng.chance(0.25)) rings.push(ring(rng, cx, cy, radius / 3, 4));
    polygons.push(rings);
  }
  return { id, geometry: { type: 'MultiPolygon', coordinates: polygons } };
}

function ring(rng: Rng, cx: number, cy: number, radius: number, corners: number): number[][] {
  const points: number[][] = [];
  for (let k = 0; k < corners; k++) {
    const angle = (2 * Math.PI * k) / corners + rng.float(-0.2, 0.2);
    const r = radius * rng.float(0.8, 1);
    points.push([clamp01(round(cx + r * Math.cos(angle), 4)), clamp01(round(cy + r * Math.sin(angle), 4))]);
  }
  const first = points[0] as number[];
  points.push([...first]);
  return points;
}

function clamp01(value: number): number {
  return Math.min(1, Math.max(0, value));
}
