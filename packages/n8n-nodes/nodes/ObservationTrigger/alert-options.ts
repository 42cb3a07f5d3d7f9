import { type SubscribeOptions, ValidationError } from '@observation-service/core/portable';
import type { IDataObject, INodeProperties } from 'n8n-workflow';

/** Longest cooldown the node offers: a day. */
export const maxCooldownMinutes = 1440;

/** What a cooldown is counted per: core's keys. */
const cooldownKeys = ['camera', 'task', 'object'] as const;

/**
 * The pauses before each new execution of a failed one: a chat service that is down for minutes
 * (a deploy, a rate limit) is covered, n8n's Retry On Fail (at most 5 tries, at most 5 s apart)
 * is not enough for that, and a workflow that fails for good stops costing executions within the
 * hour.
 */
export const runAgainChoices = {
  never: undefined,
  minutes: [30_000, 120_000, 600_000],
  hour: [60_000, 300_000, 900_000, 2_400_000],
} as const satisfies Record<string, readonly number[] | undefined>;

type RunAgain = keyof typeof runAgainChoices;

/** The trigger's Cooldown options, in n8n's alphabetical order of the Options collection. */
export const cooldownProperties: INodeProperties[] = [
  {
    displayName: 'Cooldown (Minutes)',
    name: 'cooldownMinutes',
    type: 'number',
    default: 0,
    typeOptions: { minValue: 0, maxValue: maxCooldownMinutes },
    description:
      "At most one execution per camera (or per task or object kind, see Cooldown Per) every this many minutes, judged on the events' own times. Events in between are held back: they start no execution and are counted in `cooldown.heldBack` on the next item of the same camera. 0 turns it off. Kept across restarts; an execution given up after Run Failed Executions Again does not take the slot.",
  },
  {
    displayName: 'Cooldown Per',
    name: 'cooldownPer',
    type: 'options',
    default: 'camera',
    displayOptions: { hide: { cooldownMinutes: [0] } },
    options: [
      {
        name: 'Camera',
        value: 'camera',
        description: "The event's camera (its task where the service names no camera)",
      },
      {
        name: 'Object Kind',
        value: 'object',
        description: 'The first object the filters matched (or detected): one alert per person, one per car…',
      },
      { name: 'Task', value: 'task', description: 'The task (camera rule) that detected the event' },
    ],
    description: 'What one cooldown slot covers',
  },
];

/** The trigger's Run Failed Executions Again option. */
export const runAgainProperty: INodeProperties = {
  displayName: 'Run Failed Executions Again',
  name: 'runAgainAfterFailure',
  type: 'options',
  default: 'never',
  options: [
    {
      name: 'Never',
      value: 'never',
      description: "A failed execution stays in n8n's Executions list (status Error) for you to Retry",
    },
    {
      name: 'After 30 S, 2 Min and 10 Min',
      value: 'minutes',
      description: 'Up to 3 new executions of the same events, the last about 13 minutes after the failure',
    },
    {
      name: 'After 1, 5, 15 and 40 Min',
      value: 'hour',
      description: 'Up to 4 new executions of the same events, the last about an hour after the failure',
    },
  ],
  description:
    "When an execution fails (e.g. the chat service answered 503), start a new one with the same events after a pause, until one succeeds. Each failed try stays in n8n's Executions list; when the last fails the trigger logs that it gave up. Meanwhile a crash of n8n also runs the events after them again.",
};

/** Core's cooldown from the options (undefined: off). */
export function readCooldown(options: IDataObject): SubscribeOptions['cooldown'] {
  const minutes = options.cooldownMinutes;
  if (minutes === undefined || minutes === null || minutes === '' || minutes === 0) return undefined;
  if (
    typeof minutes !== 'number' ||
    !Number.isInteger(minutes) ||
    minutes < 0 ||
    minutes > maxCooldownMinutes
  ) {
    throw new ValidationError(
      'Cooldown (Minutes)',
      typeof minutes === 'string' ? `"${minutes.slice(0, 40)}"` : String(minutes),
      `a whole number from 0 to ${maxCooldownMinutes}`,
    );
  }
  const per = options.cooldownPer ?? 'camera';
  const key = cooldownKeys.find((choice) => choice === per);
  if (key === undefined) {
    throw new ValidationError(
      'Cooldown Per',
      `"${String(per).slice(0, 40)}"`,
      cooldownKeys.map((choice) => `"${choice}"`).join(', '),
    );
  }
  return { ms: minutes * 60_000, per: key };
}

/** The pauses before each new execution of a failed one (undefined: never). */
export function readRunAgain(options: IDataObject): readonly number[] | undefined {
  const value = options.runAgainAfterFailure ?? 'never';
  if (typeof value === 'string' && value in runAgainChoices) return runAgainChoices[value as RunAgain];
  throw new ValidationError(
    'Run Failed Executions Again',
    `"${String(value).slice(0, 40)}"`,
    Object.keys(runAgainChoices)
      .map((choice) => `"${choice}"`)
      .join(', '),
  );
}
