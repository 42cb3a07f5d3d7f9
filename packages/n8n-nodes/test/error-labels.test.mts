import { type Simulator, startSimulator } from '@observation-service/simulator';
import type { ICredentialDataDecryptedObject, INodeParameters } from 'n8n-workflow';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { actionType, createEngine, type Engine, makeNode, runNode } from './harness/n8n-engine.mts';
import { tokenCredential } from './harness/simulator-credentials.mts';

/**
 * Names of core and of the node's parameters that mean nothing in the editor: a message must name
 * the field by its label instead (Start Time, Snapshot URL, Service URL in the credential, …).
 */
const internalNames =
  /\b(startTime|endTime|eventName|taskIds?|eventId|locationId|cameraId|organizationId|imageUrl|videoUrl|image_url|video_url|trustedMediaOrigins|serviceId|wsUrl|waitMs|lineWidth|snapshotWaitSeconds|clipWaitSeconds|eventTypeId|binaryPropertyName|annotateOptions|auth\.\w+|extended form)\b|Invalid url\b/;

let sim: Simulator;
let engine: Engine;

beforeAll(async () => {
  sim = await startSimulator({ port: 0, seed: 13, historySize: 20 });
  engine = await createEngine(tokenCredential(sim));
});
afterAll(async () => {
  await sim?.stop();
});

const byId = (value: string) => ({ __rl: true, mode: 'id', value });

/** What n8n shows for a run of the node: its error (or the workflow's issues) with the description. */
async function shown(parameters: INodeParameters, on: Engine = engine): Promise<string> {
  try {
    const { error } = await runNode(on, makeNode(actionType, parameters), [{ json: { hello: 'world' } }]);
    return `${error?.message ?? ''}\n${error?.description ?? ''}`;
  } catch (error) {
    // n8n refuses to start a node with parameter issues (the editor shows them on the field).
    return String((error as Error).message);
  }
}

const event = (filters: INodeParameters) => ({ resource: 'event', operation: 'getMany', limit: 5, filters });
const media = (operation: string, more: INodeParameters) => ({
  resource: 'media',
  operation,
  binaryPropertyName: 'data',
  ...more,
});

// Every parameter of the Observation node a user can type wrong, with the label it must name.
const nodeCases: Array<[string, INodeParameters, string]> = [
  ['Start Time', event({ startTime: 'yesterday' }), 'Start Time'],
  ['End Time', event({ endTime: 'nope' }), 'End Time'],
  [
    'end before start (time zone kept)',
    event({ startTime: '2024-05-02T10:00:00+08:00', endTime: '2024-05-01T10:00:00+08:00' }),
    '"2024-05-01T10:00:00+08:00"',
  ],
  ['Event Name', event({ eventName: 'x'.repeat(201) }), 'Event Name'],
  ['Task filter', event({ task: byId('abc') }), 'Task'],
  ['Event Type filter', event({ eventTypeId: 'x' }), 'Event Type'],
  ['Location filter', event({ location: byId('-1') }), 'Location'],
  ['Camera ID filter', event({ cameraId: '1.5' }), 'Camera ID'],
  ['Event Record IDs', event({ ids: '1,1' }), 'Event Record IDs'],
  ['Event Record IDs entry', event({ ids: '1,a' }), 'Event Record IDs'],
  ['Limit', { resource: 'event', operation: 'getMany', limit: 0 }, 'Limit'],
  ['Get Type', { resource: 'event', operation: 'getType', eventTypeId: 'x' }, 'Event Type'],
  ['Task → Get', { resource: 'task', operation: 'get', task: byId('1.5') }, 'Task'],
  [
    'Task filters',
    { resource: 'task', operation: 'getMany', limit: 5, filters: { cameraId: '-3' } },
    'Camera ID',
  ],
  ['Location → Get', { resource: 'location', operation: 'get', location: byId('x') }, 'Location'],
  [
    'Location filters',
    { resource: 'location', operation: 'getMany', limit: 5, filters: { organizationId: 'x' } },
    'Organization ID',
  ],
  ['Snapshot URL scheme', media('downloadSnapshot', { url: 'ftp://host/x.png' }), 'Snapshot URL'],
  ['Snapshot URL host', media('downloadSnapshot', { url: 'http://127.0.0.2:9/x.jpg' }), 'Snapshot URL'],
  ['Clip URL', media('downloadClip', { url: 'file:///etc/passwd' }), 'Clip URL'],
  [
    'Snapshot Wait',
    media('downloadSnapshot', { url: 'http://x/y.png', snapshotWaitSeconds: -1 }),
    'Snapshot Wait (Seconds)',
  ],
  [
    'Clip Wait',
    media('downloadClip', { url: 'http://x/y.mp4', clipWaitSeconds: 601 }),
    'Clip Wait (Seconds)',
  ],
  ['Event without an image', media('annotatedSnapshot', { event: '={{ $json }}' }), 'Event'],
  ['Event not an object', media('annotatedSnapshot', { event: '[1]' }), 'Event'],
];

describe('every error of the Observation node names the field by its editor label', () => {
  test.each(nodeCases)('%s', async (_name, parameters, label) => {
    const message = await shown(parameters);
    expect(message).toContain(label);
    expect(message).not.toMatch(internalNames);
    // The fix is said once: not a second time as a description under the message.
    expect(message).not.toMatch(/\nAllowed:/);
  });

  test('"Task: enter its ID…" is said once for one field', async () => {
    const message = await shown({ resource: 'task', operation: 'get', task: byId('1.5') });
    expect(message.match(/Task: enter its ID as a whole number/g)).toHaveLength(1);
  });
});

// Every field of the Observation API credential a user can type wrong.
const credentialCases: Array<[string, ICredentialDataDecryptedObject, string]> = [
  ['Service URL scheme', { url: 'htp://host/observ' }, 'Service URL in the Observation API credential'],
  ['Service URL garbage', { url: 'not an address' }, 'Service URL in the Observation API credential'],
  [
    'Service URL with a password',
    { url: 'https://user:secret@host/observ' },
    'Service URL in the Observation API credential',
  ],
  ['WebSocket URL', { wsUrl: 'ftp://host' }, 'WebSocket URL in the Observation API credential'],
  ['Service ID', { serviceId: 'a b/c' }, 'Service ID in the Observation API credential'],
  [
    'Trusted Media Hosts',
    { trustedMediaHosts: 'https://cdn.example.com/path' },
    'Trusted Media Hosts in the Observation API credential',
  ],
];

describe('every refused credential field is named with the credential it lives in', () => {
  test.each(credentialCases)('%s', async (_name, fields, label) => {
    const withField = await createEngine(tokenCredential(sim, fields));
    const message = await shown({ resource: 'task', operation: 'getMany', limit: 1 }, withField);
    expect(message).toContain(label);
    expect(message).not.toMatch(internalNames);
    expect(message).not.toContain('secret');
  });
});
