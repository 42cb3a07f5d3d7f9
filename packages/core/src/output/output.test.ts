import { describe, expect, it } from 'vitest';
import type { Location } from '../model/location.js';
import type { TaskDetail, TaskSummary } from '../model/task.js';
import { camelKey } from './camel-case.js';
import { eventTypeOutput } from './event-type-output.js';
import { locationOutput } from './location-output.js';
import { taskOutput } from './task-output.js';

const zone = {
  id: 5,
  geometry: {
    type: 'MultiPolygon' as const,
    coordinates: [
      [
        [
          [0.1, 0.1],
          [0.9, 0.1],
          [0.9, 0.9],
          [0.1, 0.1],
        ],
      ],
    ] as Array<Array<Array<[number, number]>>>,
  },
};

const listed: TaskSummary = {
  id: 7,
  name: 'Gate',
  status: 'operating, normal',
  scheduler: '24/7',
  events: [2001, 2002],
  location_id: 11,
  camera_id: 301,
  camera_rtsp: 'rtsp://cam.example:554/gate',
};

const detail: TaskDetail = {
  id: 7,
  name: 'Gate',
  status: 'operating, normal',
  scheduler: { type: 'daily', interval: 1, start_time: '08:00', end_time: '18:30' },
  events: [
    {
      id: 2001,
      name: 'person_in_zone',
      detecting_duration: 2,
      detecting_threshold: 0.5,
      interval: 30,
      zones: [zone],
    },
    {
      id: 2002,
      name: 'car_in_zone',
      detecting_duration: 1,
      detecting_threshold: 0.7,
      interval: 60,
      zones: [],
    },
  ],
  location_id: 11,
  camera_id: 301,
  camera_rtsp: 'rtsp://cam.example:554/gate',
  confidence_threshold: { person: 0.6, fork_lift: 0.4 },
  object_size_filter: { person: [10, 10, 400, 400], safety_vest: [1, 2, 3, 4] },
};

function snakeKeys(record: object): string[] {
  return Object.keys(record).filter((key) => key.includes('_'));
}

describe('taskOutput', () => {
  it('gives the list form the hosts’ shape: camelCase, scheduler an object, eventTypeIds', () => {
    const out = taskOutput(listed);
    expect(out).toEqual({
      id: 7,
      name: 'Gate',
      status: 'operating, normal',
      statusParsed: { category: 'operating', state: 'normal', raw: 'operating, normal' },
      scheduler: { type: '24/7' },
      eventTypeIds: [2001, 2002],
      locationId: 11,
      cameraId: 301,
      cameraRtsp: 'rtsp://cam.example:554/gate',
    });
    // The list's event ids are not also `events`: that name holds the detail's objects only.
    expect(out).not.toHaveProperty('events');
    expect(Object.keys(out)).toEqual([
      'id',
      'name',
      'status',
      'statusParsed',
      'scheduler',
      'eventTypeIds',
      'locationId',
      'cameraId',
      'cameraRtsp',
    ]);
  });

  it('gives the detail form the same names, with its scheduler and events in camelCase', () => {
    const out = taskOutput(detail);
    expect(out.scheduler).toEqual({ type: 'daily', interval: 1, startTime: '08:00', endTime: '18:30' });
    expect(out.eventTypeIds).toEqual([2001, 2002]);
    expect(out.events?.[0]).toEqual({
      id: 2001,
      name: 'person_in_zone',
      detectingDuration: 2,
      detectingThreshold: 0.5,
      interval: 30,
      zones: [zone],
    });
    // Zones are passed on as sent (the same objects, their geometry untouched).
    expect(out.events?.[0]?.zones[0]).toBe(zone);
    expect(out.statusParsed).toEqual({ category: 'operating', state: 'normal', raw: 'operating, normal' });
    expect(snakeKeys(out)).toEqual([]);
  });

  it('keeps object names, which are data, as the service spells them', () => {
    const out = taskOutput(detail);
    expect(out.confidenceThreshold).toEqual({ person: 0.6, fork_lift: 0.4 });
    expect(out.objectSizeFilter).toEqual({ person: [10, 10, 400, 400], safety_vest: [1, 2, 3, 4] });
  });

  it('list and detail share every list field under the same name, so one expression reads both', () => {
    const fromList = Object.keys(taskOutput(listed));
    const fromDetail = Object.keys(taskOutput(detail));
    expect(fromList.filter((key) => !fromDetail.includes(key))).toEqual([]);
    expect(fromDetail.filter((key) => !fromList.includes(key))).toEqual([
      'events',
      'confidenceThreshold',
      'objectSizeFilter',
    ]);
  });

  it('camelCases the top-level key of a field the spec does not describe, value untouched, after the known ones', () => {
    const camera = { serial_no: 'A1', ip_address: '10.0.0.5' };
    const out = taskOutput({
      ...listed,
      camera_model: 'X-200',
      camera,
      updated_at: '2024-05-01',
    } as TaskSummary);
    expect(out.cameraModel).toBe('X-200');
    expect(out.updatedAt).toBe('2024-05-01');
    // Only the top-level key: the nested object is the service's, as sent.
    expect(out.camera).toBe(camera);
    expect(Object.keys(out).slice(-3)).toEqual(['cameraModel', 'camera', 'updatedAt']);
    expect(snakeKeys(out)).toEqual([]);
  });

  it('an unknown field that camelCases onto a known one keeps its own spelling; the spec’s field wins', () => {
    const odd = taskOutput({ ...listed, location__id: 99 } as unknown as TaskSummary);
    expect(odd.locationId).toBe(11);
    expect(odd.location__id).toBe(99);
  });

  it('an empty detail event list is still the detail form, and odd values never throw', () => {
    const out = taskOutput({ ...detail, events: [] });
    expect(out.events).toEqual([]);
    expect(out.eventTypeIds).toEqual([]);
    const odd = taskOutput({ id: 1, status: 42, events: 'x', scheduler: null } as unknown as TaskSummary);
    expect(odd).toMatchObject({ id: 1, eventTypeIds: [], events: 'x', scheduler: null });
    expect(odd.statusParsed.category).toBe('unknown');
    expect(() => taskOutput(null as unknown as TaskSummary)).not.toThrow();
  });
});

describe('locationOutput and eventTypeOutput', () => {
  it('gives a location organizationId and camelCases unknown keys', () => {
    const location = {
      id: 11,
      name: 'Warehouse',
      timezone: 'Asia/Taipei',
      organization_id: 3,
      coordinates: { latitude: 25.03, longitude: 121.56 },
      floor_count: 2,
    } as Location;
    const out = locationOutput(location);
    expect(out).toEqual({
      id: 11,
      name: 'Warehouse',
      timezone: 'Asia/Taipei',
      organizationId: 3,
      coordinates: { latitude: 25.03, longitude: 121.56 },
      floorCount: 2,
    });
    expect(Object.keys(out)).toEqual([
      'id',
      'name',
      'timezone',
      'organizationId',
      'coordinates',
      'floorCount',
    ]);
  });

  it('gives an event type its fields, unknown keys camelCased', () => {
    expect(
      eventTypeOutput({ id: 2001, name: 'person_in_zone', description: 'A person', created_by: 'ops' }),
    ).toEqual({
      id: 2001,
      name: 'person_in_zone',
      description: 'A person',
      createdBy: 'ops',
    });
  });
});

describe('camelKey', () => {
  it('folds snake_case only', () => {
    expect(camelKey('organization_id')).toBe('organizationId');
    expect(camelKey('start_time')).toBe('startTime');
    expect(camelKey('object_size_filter')).toBe('objectSizeFilter');
    expect(camelKey('camera2_id')).toBe('camera2Id');
    expect(camelKey('camera')).toBe('camera');
    expect(camelKey('_links')).toBe('_links');
    expect(camelKey('HTTP_CODE')).toBe('HTTP_CODE');
    expect(camelKey('trailing_')).toBe('trailing_');
  });
});
