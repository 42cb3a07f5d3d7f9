import { createServer } from 'node:net';
import { HttpError, ObservationError } from '@observation-service/core';
import { describe, expect, it } from 'vitest';
import { connectDetail, connectReason } from '../src/lib/connect-reason.js';

/** A port nothing listens on: bound, then closed again. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const { port } = server.address() as { port: number };
  await new Promise<void>((closed) => server.close(() => closed()));
  return port;
}

describe('the short reason of a failed connection (status ring)', () => {
  it('names the system code of a refused connection, through the error that wraps it', async () => {
    const error = await fetch(`http://127.0.0.1:${await closedPort()}/`).then(
      () => undefined,
      (failed: Error) => failed,
    );
    if (!error) throw new Error('a closed port answered');
    const wrapped = new ObservationError(
      'TASK_LIST_FAILED',
      `Reading the task list failed: ${error.message}`,
      {
        cause: error,
      },
    );
    expect(connectReason(wrapped)).toBe('ECONNREFUSED');
  });

  it('names the HTTP status of an answer', () => {
    const answer = new HttpError({ status: 404, method: 'GET', url: 'http://127.0.0.1/apiserver/tasks' });
    expect(connectReason(new ObservationError('TASK_LIST_FAILED', 'failed', { cause: answer }))).toBe(
      'HTTP 404',
    );
  });

  it('gives the failed request with its address as the detail a report leads with', () => {
    const answer = new HttpError({
      status: 404,
      method: 'GET',
      url: 'http://127.0.0.1/observ/apiserver/tasks',
    });
    const wrapped = new ObservationError('TASK_LIST_FAILED', 'Reading the task list failed', {
      cause: answer,
    });
    expect(connectDetail(wrapped)).toBe('GET http://127.0.0.1/observ/apiserver/tasks failed with HTTP 404');
    // Nothing in the chain says why: the error's own message.
    expect(connectDetail(new Error('socket hang up'))).toBe('socket hang up');
  });

  it('shortens any other message to 40 characters', () => {
    const reason = connectReason(new Error('x'.repeat(100)));
    expect(reason).toHaveLength(40);
    expect(reason.endsWith('…')).toBe(true);
  });
});
