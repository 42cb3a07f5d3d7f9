import { expect, test } from 'vitest';
import { n8nClock } from '../shared/n8n-clock.ts';

// Core's every wait in n8n goes through this clock (n8n-workflow's sleep): it must end when asked
// to, with core's own abort reason, or a deactivated trigger would keep waits alive.

test('sleep resolves after the time on n8n-workflow’s timer', async () => {
  const started = n8nClock.now();
  await n8nClock.sleep(20);
  expect(n8nClock.now() - started).toBeGreaterThanOrEqual(15);
});

test('an abort ends the sleep at once with the signal’s own reason', async () => {
  const controller = new AbortController();
  const reason = new Error('deactivated');
  const waiting = n8nClock.sleep(60_000, controller.signal);
  controller.abort(reason);
  await expect(waiting).rejects.toBe(reason);
});

test('an already aborted signal rejects without waiting', async () => {
  const controller = new AbortController();
  controller.abort(new Error('closed before'));
  await expect(n8nClock.sleep(60_000, controller.signal)).rejects.toThrow('closed before');
});

test('a sleep that was not aborted leaves no listener on the signal', async () => {
  const controller = new AbortController();
  let listeners = 0;
  const add = controller.signal.addEventListener.bind(controller.signal);
  const remove = controller.signal.removeEventListener.bind(controller.signal);
  controller.signal.addEventListener = ((...args: Parameters<typeof add>) => {
    listeners++;
    add(...args);
  }) as typeof add;
  controller.signal.removeEventListener = ((...args: Parameters<typeof remove>) => {
    listeners--;
    remove(...args);
  }) as typeof remove;
  await n8nClock.sleep(5, controller.signal);
  expect(listeners).toBe(0);
});
