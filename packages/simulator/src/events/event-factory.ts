/**
 * Builds event record #id deterministically from (seed, id, task, time): the same inputs always
 * give the same event, so history never needs to store seeded events as objects.
 */
import { hash2, Rng, round } from '../random.js';
import { formatTimestamp } from '../time-format.js';
import type { DetectedObject, EventMedia, Location, SimulatedEvent, Task, VlmResult } from '../types.js';
import {
  EVENT_KINDS,
  type EventKind,
  eventKindById,
  NOTES,
  PLATE_PREFIXES,
  VLM_TEMPLATES,
} from '../world/catalog.js';
import { vlmContinuation } from './vlm-narrative.js';

const KIND_SALT = 0x6b1d;

/** Which of the task's event kinds record #id is: cheap, so history filters need not build events. */
export function eventKindIdFor(seed: number, id: number, task: Task): number {
  const events = task.events;
  if (events.length === 0) return EVENT_KINDS[0]?.id ?? 2001;
  return (events[hash2(seed ^ KIND_SALT, id) % events.length] as { id: number }).id;
}

export interface EventContext {
  seed: number;
  /** The API URL media links point at, e.g. http://127.0.0.1:8080/apiserver. */
  mediaBase: string;
  location(id: number): Location | undefined;
  /** What `image_url` / `video_url` hold: one file per event (default), none (""), or one per task. */
  media?: EventMedia;
}

/** The media URLs of record `id` on `task` under each {@link EventMedia} mode. */
export function mediaUrls(
  context: EventContext,
  id: number,
  taskId: number,
): { image: string; video: string } {
  const base = `${context.mediaBase}/media`;
  switch (context.media ?? 'unique') {
    case 'none':
      return { image: '', video: '' };
    case 'shared':
      return { image: `${base}/snapshots/task-${taskId}.png`, video: `${base}/clips/task-${taskId}.mp4` };
    default:
      return { image: `${base}/snapshots/${id}.png`, video: `${base}/clips/${id}.mp4` };
  }
}

/**
 * Record `id` on `task` at `epochSeconds`. Its content (kind, objects, plate, VLM answer, note,
 * coordinates) comes from `contentId`, by default the id itself: an emitted twin repeats another
 * record's content under its own id.
 */
export function buildEvent(
  context: EventContext,
  id: number,
  task: Task,
  epochSeconds: number,
  contentId = id,
): SimulatedEvent {
  const rng = new Rng(hash2(context.seed, contentId));
  const kindId = eventKindIdFor(context.seed, contentId, task);
  const kind = eventKindById(kindId) ?? fallbackKind(kindId, task);
  const objects = buildObjects(rng, kind);
  const location = context.location(task.location_id);
  const base = location?.coordinates ?? { latitude: 0, longitude: 0 };
  const plate =
    kind.readsPlates && objects.length > 0 && rng.chance(0.85)
      ? `${rng.pick(PLATE_PREFIXES)}${plateTail(rng)}`
      : undefined;
  const urls = mediaUrls(context, id, task.id);
  const event: SimulatedEvent = {
    id,
    task_id: task.id,
    event_id: kind.id,
    event_name: kind.name,
    event_description: kind.description,
    timestamp: formatTimestamp(epochSeconds),
    image_url: urls.image,
    video_url: urls.video,
    detected_objects: objects,
    location_id: task.location_id,
    camera_id: task.camera_id,
    timezone: location?.timezone ?? 'UTC',
    vlm: rng.chance(0.75)
      ? buildVlm(rng, kind, objects.length, vlmContinuation(context.seed, contentId))
      : null,
    coordinates: {
      latitude: round(base.latitude + rng.float(-0.002, 0.002, 6), 6),
      longitude: round(base.longitude + rng.float(-0.002, 0.002, 6), 6),
    },
    note: plate && rng.chance(0.5) ? `Plate read: ${plate}` : rng.pick(NOTES),
  };
  if (plate) event.license_plate = plate;
  return event;
}

function fallbackKind(id: number, task: Task): EventKind {
  const named = task.events.find((event) => event.id === id);
  return {
    id,
    name: named?.name ?? `event_${id}`,
    description: named?.name ?? `Event ${id}`,
    objects: ['object'],
    objectCount: [0, 2],
    vlmTemplates: [501],
  };
}

function buildObjects(rng: Rng, kind: EventKind): DetectedObject[] {
  const count = rng.int(kind.objectCount[0], kind.objectCount[1]);
  const crowd = count > 4;
  const objects: DetectedObject[] = [];
  for (let k = 0; k < count; k++) {
    const name = k === 0 ? (kind.objects[0] as string) : rng.pick(kind.objects);
    const w = rng.float(crowd ? 0.03 : 0.06, crowd ? 0.1 : 0.35, 3);
    const h = rng.float(crowd ? 0.08 : 0.1, crowd ? 0.22 : 0.5, 3);
    const cx = rng.float(w / 2 + 0.001, 1 - w / 2 - 0.001, 4);
    const cy = rng.float(h / 2 + 0.001, 1 - h / 2 - 0.001, 4);
    objects.push({
      object_id: String(rng.int(1000, 99999)),
      object_name: name,
      coordinates: [cx, cy, w, h],
      confidence_score: rng.float(0.35, 0.99, 3),
      warning: rng.chance(0.3),
    });
  }
  return objects;
}

const WEATHER = ['Sunny', 'Cloudy', 'Rain', 'Fog', 'Snow'];
const COLOURS = ['white', 'black', 'silver', 'red', 'blue', 'yellow'];
const VEHICLES = ['car', 'van', 'truck', 'motorcycle', 'bus'];
const SCENES = [
  'Two people near the gate, one carrying a box',
  'Loading area with a forklift in motion',
  'Empty corridor, lights on',
  'Smoke rising behind the storage racks',
  'A worker kneeling next to a pallet',
];

/** `narrative` continues the free-text answer, so answers vary in length as a real model's do. */
function buildVlm(rng: Rng, kind: EventKind, objectCount: number, narrative: string): VlmResult {
  const templateId = rng.pick(kind.vlmTemplates);
  const template = VLM_TEMPLATES.find((t) => t.id === templateId) ?? {
    id: templateId,
    name: `Template ${templateId}`,
  };
  const result: VlmResult = { observ_template_id: template.id, observ_template_name: template.name };
  if (template.id === 502) {
    result['Vehicle color'] = rng.pick(COLOURS);
    result['Vehicle type'] = rng.pick(VEHICLES);
    result['Is the vehicle blocking the exit'] = rng.chance(0.4);
    result['Estimated speed (km/h)'] = rng.float(0, 60, 1);
  } else if (template.id === 503) {
    result['Helmet worn'] = rng.chance(0.5);
    result['Vest colours'] = rng.chance(0.3) ? [] : [rng.pick(['orange', 'yellow', 'green'])];
    result['Risk level'] = rng.int(1, 5);
    result.Summary = `${rng.pick(SCENES)}${narrative}`;
  } else {
    result['Is there an ambulance present'] = rng.chance(0.1);
    result['Number of people'] = objectCount + rng.int(0, 3);
    result.Weather = rng.chance(0.2) ? [rng.pick(WEATHER), rng.pick(WEATHER)] : [rng.pick(WEATHER)];
    result['Scene description'] = `${rng.pick(SCENES)}${narrative}`;
  }
  return result;
}

const PLATE_LETTERS = 'ABCDEFGHJKLMNPRSTUVWXYZ';

function plateTail(rng: Rng): string {
  let letters = '';
  for (let n = 0; n < 2; n++) letters += PLATE_LETTERS[rng.int(0, PLATE_LETTERS.length - 1)];
  return `${letters} ${rng.int(100, 9999)}`;
}
