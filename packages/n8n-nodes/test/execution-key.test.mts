import { describe, expect, test } from 'vitest';
import { executionKey } from '../nodes/ObservationTrigger/execution-key';

const event = (id: number) => ({ id, taskId: 1, eventId: 2, occurredAt: '2026-01-01T00:00:00.000Z' });
const basic = (second: number) => ({ taskId: 1, eventId: 2, occurredAt: `2026-01-01T00:00:0${second}.000Z` });

describe('executionKey', () => {
  test('one event: workflow, node and record id, readable', () => {
    expect(executionKey('wf', 'node-1', [event(42)])).toBe('observation:wf:node-1:42');
  });

  test('keys differ by workflow and node (n8n’s unique index spans every workflow)', () => {
    const keys = [
      executionKey('wf', 'node-1', [event(42)]),
      executionKey('wf2', 'node-1', [event(42)]),
      executionKey('wf', 'node-2', [event(42)]),
    ];
    expect(new Set(keys).size).toBe(3);
  });

  test('a basic-form event (no record id) is keyed by a hash of its content, stable and short', () => {
    const key = executionKey('wf', 'n', [basic(1)]);
    expect(key).toMatch(/^observation:wf:n:h[0-9a-f]{16}$/);
    expect(executionKey('wf', 'n', [basic(1)])).toBe(key);
    expect(executionKey('wf', 'n', [basic(2)])).not.toBe(key);
  });

  test('a batch is refused only when it holds the same events: another grouping gets another key', () => {
    const batch = executionKey('wf', 'n', [event(1), event(2), event(3)]);
    expect(executionKey('wf', 'n', [event(1), event(2), event(3)])).toBe(batch);
    expect(executionKey('wf', 'n', [event(1), event(2), event(3), event(4)])).not.toBe(batch);
    expect(batch.length).toBeLessThanOrEqual(255);
  });
});
