/**
 * Parses the part of a realtime address after `{prefix}/events/realtime/`:
 * basic `:task_id` (one task) or extended `:service_id/:task_ids` (an id, `0` = all, `1,2` = list).
 */
import type { Form, SimulatorForm } from '../types.js';

export interface RealtimeSelection {
  form: Form;
  serviceId?: string;
  /** undefined = every task. */
  taskIds?: ReadonlySet<number>;
}

const ID = /^\d+$/;

export function parseRealtimePath(
  rest: string,
  served: SimulatorForm,
): RealtimeSelection | { error: string } {
  const segments = rest.split('/');
  if (segments.length === 1) {
    if (served === 'extended')
      return {
        error: 'This deployment serves the extended realtime path /events/realtime/:service_id/:task_ids',
      };
    const [taskId = ''] = segments;
    if (!ID.test(taskId) || Number(taskId) < 1) return { error: 'task_id must be a positive integer' };
    return { form: 'basic', taskIds: new Set([Number(taskId)]) };
  }
  if (segments.length === 2) {
    if (served === 'basic')
      return { error: 'This deployment serves the basic realtime path /events/realtime/:task_id' };
    const [serviceId = '', list = ''] = segments;
    const parts = list.split(',');
    if (serviceId === '' || parts.some((part) => !ID.test(part))) {
      return { error: 'task ids must be an id, 0 for all, or a comma-separated list of ids' };
    }
    const ids = parts.map(Number);
    return {
      form: 'extended',
      serviceId: decodeURIComponent(serviceId),
      taskIds: ids.includes(0) ? undefined : new Set(ids),
    };
  }
  return { error: 'Not Found' };
}
