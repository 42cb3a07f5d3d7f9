import { createClient } from '@observation-service/core';
import { Agent, request } from 'undici';
import type { SimulatorAddresses } from './simulator-process.ts';

export type HistoryForm = 'basic' | 'extended';

/** Largest page each form allows (the deployment notes): the page size both readers use. */
export const PAGE_SIZE: Record<HistoryForm, number> = { extended: 100, basic: 10_000 };

/**
 * Core's reader: historyAll (normalization of every event), with its default paging or `concurrency`
 * pages requested at once; stops after `max`.
 */
export async function readWithCore(
  sim: SimulatorAddresses,
  form: HistoryForm,
  max = Number.POSITIVE_INFINITY,
  concurrency?: number,
): Promise<number> {
  const client = createClient({
    url: sim.apiUrl,
    form,
    auth: { token: sim.token },
    ...(form === 'extended' ? { serviceId: sim.serviceId } : {}),
  });
  let count = 0;
  let sink = 0;
  try {
    for await (const event of client.events.historyAll(
      {},
      concurrency === undefined ? {} : { concurrency },
    )) {
      sink += event.taskId;
      count++;
      if (count >= max) break;
    }
  } finally {
    await client.close();
  }
  if (sink === 0 && count > 0) throw new Error('history events without task ids');
  return count;
}

/**
 * The baseline: the loop a user writes by hand with undici: one request at a time with the
 * largest page the form allows, JSON-parse the body, next offset, stop on a short page. A
 * keep-alive Agent, as undici's default dispatcher has. No normalization.
 */
export async function readNaively(
  sim: SimulatorAddresses,
  form: HistoryForm,
  max = Number.POSITIVE_INFINITY,
): Promise<number> {
  const limit = PAGE_SIZE[form];
  const headers: Record<string, string> = { authorization: `Bearer ${sim.token}` };
  if (form === 'extended') headers['x-service-id'] = sim.serviceId;
  const dispatcher = new Agent();
  let count = 0;
  let sink = 0;
  try {
    for (let offset = 0; ; offset += limit) {
      const response = await request(`${sim.apiUrl}/events/history?offset=${offset}&limit=${limit}`, {
        headers,
        dispatcher,
      });
      if (response.statusCode !== 200) throw new Error(`history answered ${response.statusCode}`);
      const page = (await response.body.json()) as { task_id: number }[];
      for (const raw of page) sink += raw.task_id;
      count += page.length;
      if (page.length < limit || count >= max) break;
    }
  } finally {
    await dispatcher.close();
  }
  if (sink === 0 && count > 0) throw new Error('history events without task ids');
  return count;
}
