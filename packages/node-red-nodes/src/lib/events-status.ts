import type { SubscriptionStatus } from '@observation-service/core';
import type { NodeStatus } from './node-red-api.js';
import { editorText } from './status-text.js';

/** Translates a message-catalog key of the events node (the runtime adds the namespace). */
export type Translate = (key: string, substitutions?: Record<string, string | number>) => string;

/** Core's status (state, attempt, why it cannot connect, credentials refused) and the node's counts. */
export interface StatusInput extends SubscriptionStatus {
  /** Events this node has sent. */
  count: number;
  /** Set when a message changed what the node listens to: `all`, or the task ids, short. */
  retargeted?: { tasks: string | undefined };
  /** "When the flow is done": events out in the flow or waiting for it (shown when there are any). */
  waiting?: number;
  /** Events the cooldown held back (shown when there are any). */
  heldBack?: number;
  /** Events core gave up on (shown when there are any). */
  givenUp?: number;
}

/**
 * Node status for a subscription state; every text comes from the message catalog, a text without
 * a count as its key, for the editor to show in its own language (see `editorText`).
 */
export function eventsStatus(input: StatusInput, t: Translate): NodeStatus {
  const status = stateStatus(input, t);
  const more = [
    input.waiting ? t('observation-events.status.waiting', { count: input.waiting }) : '',
    input.heldBack ? t('observation-events.status.heldBack', { count: input.heldBack }) : '',
    input.givenUp ? t('observation-events.status.givenUp', { count: input.givenUp }) : '',
  ].filter(Boolean);
  if (more.length === 0 || status.text === undefined) return status;
  // A text sent as its key for the editor to translate cannot have more appended: the runtime
  // translates it then, as it does every text with a count.
  const base = status.text.startsWith('observation-events.status.') ? t(status.text) : status.text;
  return { ...status, text: [base, ...more].join(' · ') };
}

function stateStatus(input: StatusInput, t: Translate): NodeStatus {
  // "1 event", not "1 events": the catalog has a text for one (the same words in zh-TW).
  const counted = (key: string) => `observation-events.status.${key}${input.count === 1 ? 'One' : ''}`;
  if (input.cannotConnect !== undefined) {
    return {
      fill: 'red',
      shape: 'ring',
      text: t('observation-events.status.cannotConnect', { reason: input.cannotConnect }),
    };
  }
  switch (input.state) {
    case 'paused':
      return {
        fill: 'grey',
        shape: 'ring',
        text: t(counted('paused'), { count: input.count }),
      };
    case 'open': {
      const retargeted = input.retargeted;
      if (retargeted) {
        const tasks =
          retargeted.tasks === undefined
            ? t('observation-events.status.allTasks')
            : t('observation-events.status.someTasks', { ids: retargeted.tasks });
        return {
          fill: 'green',
          shape: 'dot',
          text: t(counted('connectedTo'), { tasks, count: input.count }),
        };
      }
      return {
        fill: 'green',
        shape: 'dot',
        text: t(counted('connected'), { count: input.count }),
      };
    }
    case 'connecting':
      return { fill: 'yellow', shape: 'ring', text: editorText('observation-events.status.connecting') };
    case 'reconnecting':
      return input.attempt === undefined
        ? {
            fill: 'yellow',
            shape: 'ring',
            text: editorText('observation-events.status.reconnectingNoAttempt'),
          }
        : {
            fill: 'yellow',
            shape: 'ring',
            text: t('observation-events.status.reconnecting', { attempt: input.attempt }),
          };
    case 'backfilling':
      return { fill: 'yellow', shape: 'ring', text: editorText('observation-events.status.catchingUp') };
    case 'failed':
      return {
        fill: 'red',
        shape: 'ring',
        text: editorText(
          input.credentialsRefused
            ? 'observation-events.status.authFailed'
            : 'observation-events.status.error',
        ),
      };
    case 'closed':
      return { fill: 'grey', shape: 'ring', text: editorText('observation-events.status.closed') };
  }
}
