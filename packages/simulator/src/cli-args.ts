/** Command-line arguments of `observation-simulator`, validated with messages naming the flag and value. */
import { HISTORY_TIES } from './events/event-log.js';
import {
  MAX_DELAY_MS,
  MAX_FIRST_RECORD_ID,
  MAX_PAGE_BYTES,
  MAX_RESPONSE_LATENCY_MS,
  type SimulatorOptions,
} from './options.js';
import {
  type LatePublication,
  type MediaDelay,
  REALISM_LEVELS,
  REALISM_PRESETS,
  type Realism,
} from './realism.js';
import { EVENT_MEDIA } from './types.js';

/** The CLI runs a deployment-like simulator unless told otherwise; the library default is 'ideal'. */
export const CLI_REALISM: Realism = 'mild';

export const USAGE = `Usage: observation-simulator [options]

A stand-in Observation Service (REST, realtime WebSocket, media, faults) to develop flows offline.

Options:
  --port <n>             TCP port, 0 = any free port            (default 8080)
  --host <address>       interface to listen on                 (default 127.0.0.1)
  --form <form>          basic | extended | both                (default both)
  --rate <n>             live events per second, 0 = none       (default 2)
  --seed <n>             seed of the world and the events       (default 1)
  --prefix <path>        API path prefix                        (default /apiserver)
  --history-size <n>     seeded past events                     (default 5000)
  --first-record-id <n>  record id of the oldest seeded event; later ones count up
                         (default 1; restarting under a host that keeps state: the last run's
                         newest id + 1, so no id is reused)
  --history-order <o>    asc | desc                             (default desc)
  --history-span <s>     seconds the seeded events cover, up to the start (default 604800)
  --history-tasks <t>    all | active: tasks of the seeded events (default all)
  --over-limit <mode>    reject | clamp                         (default reject)
  --token-lifetime <s>   lifetime of login tokens in seconds    (default 86400)
  --service-id <id>      service id (default derived from the seed)
  --email <email>        demo login email
  --password <secret>    demo login password
  --token <token>        a fixed static token to accept
  --realism <level>      ideal | mild | messy: defaults of the options below (default mild)
  --camera-latency <ms>  per-camera analysis latency range, e.g. 200..1500 or 0 (off)
  --late-share <share>   share 0..1 of live events published late, 0 = off
  --late-ms <ms>         how late, e.g. 5000..30000
  --history-page-cap <n> history items per page at most, silently, 0 = no cap
  --history-page-bytes <n> history answers hold whole rows within n bytes of JSON, 0 = no cap
  --numeric-timestamps   send timestamps as Unix seconds (=false to turn off)
  --response-latency <ms> time each REST answer takes, e.g. 5..40 or 0 (off)
  --snapshot-delay <ms>  snapshot written after publication, e.g. 500..2000 or 0 (off)
  --clip-delay <ms>      clip written after the event's timestamp, e.g. 6000..25000 or 0 (off)
  --media-busy <ms>      503 + Retry-After in the last ms before a file is written, 0 = 404 only
  --history-ties <t>     id | per-request: order of same-second history rows (from --realism)
  --history-lag <ms>     a live event shows in history this long after its push (from --realism)
  --history-lag-spread <ms> and up to this much later, drawn per event (default 0)
  --interleaved-ids <n>  skip up to n record ids before each live event: other writers' rows (default 0)
  --upgrade-delay <ms>   answer each websocket upgrade this late, 0 = at once (default 0)
  --media <m>            unique | none | shared: events' image_url/video_url (default unique)
  --json                 print the addresses as one JSON line instead of text
  -h, --help             show this help
`;

export interface CliArgs {
  help: boolean;
  json: boolean;
  options: SimulatorOptions;
}

export class CliError extends Error {
  override name = 'CliError';
}

type Setter = (value: string, options: SimulatorOptions) => void;

function integer(flag: string, min: number, max: number): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!/^-?\d+$/.test(value) || n < min || n > max) {
      throw new CliError(`${flag} must be an integer from ${min} to ${max}, got "${value}"`);
    }
    return n;
  };
}

function choice<T extends string>(flag: string, allowed: readonly T[]): (value: string) => T {
  return (value) => {
    if (!allowed.includes(value as T))
      throw new CliError(`${flag} must be one of ${allowed.join(', ')}, got "${value}"`);
    return value as T;
  };
}

const FLAGS: Record<string, Setter> = {
  '--port': (v, o) => {
    o.port = integer('--port', 0, 65535)(v);
  },
  '--host': (v, o) => {
    o.host = v;
  },
  '--form': (v, o) => {
    o.form = choice('--form', ['basic', 'extended', 'both'] as const)(v);
  },
  '--rate': (v, o) => {
    const n = Number(v);
    if (v.trim() === '' || !Number.isFinite(n) || n < 0) {
      throw new CliError(`--rate must be a number >= 0 (events per second), got "${v}"`);
    }
    o.rate = n;
  },
  '--seed': (v, o) => {
    o.seed = integer('--seed', 0, 2 ** 32 - 1)(v);
  },
  '--prefix': (v, o) => {
    o.prefix = v;
  },
  '--history-size': (v, o) => {
    o.historySize = integer('--history-size', 0, 100_000_000)(v);
  },
  '--first-record-id': (v, o) => {
    o.firstRecordId = integer('--first-record-id', 1, MAX_FIRST_RECORD_ID)(v);
  },
  '--history-order': (v, o) => {
    o.historyOrder = choice('--history-order', ['asc', 'desc'] as const)(v);
  },
  '--history-span': (v, o) => {
    o.historySpanMs = integer('--history-span', 1, 100 * 365 * 86400)(v) * 1000;
  },
  '--history-tasks': (v, o) => {
    o.historyTasks = choice('--history-tasks', ['all', 'active'] as const)(v);
  },
  '--over-limit': (v, o) => {
    o.overLimit = choice('--over-limit', ['reject', 'clamp'] as const)(v);
  },
  '--token-lifetime': (v, o) => {
    o.tokenLifetimeMs = integer('--token-lifetime', 1, 10 * 365 * 86400)(v) * 1000;
  },
  '--service-id': (v, o) => {
    o.serviceId = v;
  },
  '--email': (v, o) => {
    o.credentials = { email: v, password: o.credentials?.password ?? '' };
  },
  '--password': (v, o) => {
    o.credentials = { email: o.credentials?.email ?? '', password: v };
  },
  '--token': (v, o) => {
    o.token = v;
  },
  '--realism': (v, o) => {
    o.realism = choice('--realism', REALISM_LEVELS)(v);
  },
  '--camera-latency': (v, o) => {
    const [min, max] = msRange('--camera-latency', v);
    o.cameraLatencyMs = { min, max };
  },
  '--late-share': (v, o) => {
    const share = Number(v);
    if (v.trim() === '' || !Number.isFinite(share) || share < 0 || share > 1) {
      throw new CliError(`--late-share must be a number from 0 to 1, got "${v}"`);
    }
    o.latePublication = { ...(o.latePublication ?? UNSET_LATE), share };
  },
  '--late-ms': (v, o) => {
    const [minMs, maxMs] = msRange('--late-ms', v);
    o.latePublication = { ...(o.latePublication ?? UNSET_LATE), minMs, maxMs };
  },
  '--history-page-cap': (v, o) => {
    o.historyPageCap = integer('--history-page-cap', 0, 1_000_000)(v);
  },
  '--history-page-bytes': (v, o) => {
    o.historyPageBytes = integer('--history-page-bytes', 0, MAX_PAGE_BYTES)(v);
  },
  '--snapshot-delay': (v, o) => {
    const [min, max] = msRange('--snapshot-delay', v);
    o.mediaDelay = { ...(o.mediaDelay ?? UNSET_MEDIA), snapshotMs: { min, max } };
  },
  '--clip-delay': (v, o) => {
    const [min, max] = msRange('--clip-delay', v);
    o.mediaDelay = { ...(o.mediaDelay ?? UNSET_MEDIA), clipMs: { min, max } };
  },
  '--media-busy': (v, o) => {
    o.mediaDelay = {
      ...(o.mediaDelay ?? UNSET_MEDIA),
      busyMs: integer('--media-busy', 0, MAX_RESPONSE_LATENCY_MS)(v),
    };
  },
  '--response-latency': (v, o) => {
    const [min, max] = msRange('--response-latency', v, MAX_RESPONSE_LATENCY_MS);
    o.responseLatencyMs = { min, max };
  },
  '--history-ties': (v, o) => {
    o.historyTies = choice('--history-ties', HISTORY_TIES)(v);
  },
  '--history-lag': (v, o) => {
    o.historyLagMs = integer('--history-lag', 0, MAX_DELAY_MS)(v);
  },
  '--history-lag-spread': (v, o) => {
    o.historyLagSpreadMs = integer('--history-lag-spread', 0, MAX_DELAY_MS)(v);
  },
  '--interleaved-ids': (v, o) => {
    o.interleavedIds = integer('--interleaved-ids', 0, 1_000_000)(v);
  },
  '--upgrade-delay': (v, o) => {
    o.upgradeDelayMs = integer('--upgrade-delay', 0, MAX_RESPONSE_LATENCY_MS)(v);
  },
  '--media': (v, o) => {
    o.media = choice('--media', EVENT_MEDIA)(v);
  },
  '--numeric-timestamps': (v, o) => {
    o.numericTimestamps = choice('--numeric-timestamps', ['true', 'false'] as const)(v) === 'true';
  },
};

/** Flags that need no value: the bare flag means true, `--flag=false` false. */
const SWITCHES = new Set(['--numeric-timestamps']);

/** Marks the half of latePublication not given yet; filled from the preset once all flags are read. */
const UNSET_LATE: LatePublication = { share: -1, minMs: -1, maxMs: -1 };

/** Marks the parts of mediaDelay not given yet; filled from the preset once all flags are read. */
const UNSET_MEDIA: MediaDelay = {
  snapshotMs: { min: -1, max: -1 },
  clipMs: { min: -1, max: -1 },
  busyMs: -1,
};

/** `min..max` or a single number of milliseconds, at most `maxMs`. */
function msRange(flag: string, value: string, maxMs = 24 * 3600 * 1000): [number, number] {
  const match = /^(\d+)(?:\.\.(\d+))?$/.exec(value.trim());
  const min = Number(match?.[1]);
  const max = Number(match?.[2] ?? match?.[1]);
  if (!match || max < min || max > maxMs) {
    throw new CliError(
      `${flag} must be milliseconds as <min>..<max> (min <= max <= ${maxMs}) or one number, got "${value}"`,
    );
  }
  return [min, max];
}

/** Completes a latePublication given only in part from the preset (from 'mild' where the preset has none). */
function completeLate(options: SimulatorOptions): void {
  const given = options.latePublication;
  if (!given) return;
  const preset = REALISM_PRESETS[options.realism ?? CLI_REALISM].latePublication;
  const fallback = preset.share > 0 ? preset : REALISM_PRESETS.mild.latePublication;
  options.latePublication = {
    share: given.share >= 0 ? given.share : fallback.share,
    minMs: given.minMs >= 0 ? given.minMs : fallback.minMs,
    maxMs: given.maxMs >= 0 ? given.maxMs : fallback.maxMs,
  };
}

/** Completes a mediaDelay given only in part from the chosen preset. */
function completeMedia(options: SimulatorOptions): void {
  const given = options.mediaDelay;
  if (!given) return;
  const preset = REALISM_PRESETS[options.realism ?? CLI_REALISM].mediaDelay;
  options.mediaDelay = {
    snapshotMs: given.snapshotMs.min >= 0 ? given.snapshotMs : { ...preset.snapshotMs },
    clipMs: given.clipMs.min >= 0 ? given.clipMs : { ...preset.clipMs },
    busyMs: given.busyMs >= 0 ? given.busyMs : preset.busyMs,
  };
}

export function parseCliArgs(argv: readonly string[]): CliArgs {
  const options: SimulatorOptions = { port: 8080, rate: 2, realism: CLI_REALISM };
  let help = false;
  let json = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '-h' || arg === '--help') {
      help = true;
      continue;
    }
    if (arg === '--json') {
      json = true;
      continue;
    }
    const eq = arg.indexOf('=');
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    const setter = FLAGS[flag];
    if (!setter) throw new CliError(`unknown option "${flag}" (see --help)`);
    let value: string | undefined;
    if (SWITCHES.has(flag)) value = eq > 0 ? arg.slice(eq + 1) : 'true';
    else if (eq > 0) value = arg.slice(eq + 1);
    else {
      value = argv[i + 1];
      i++;
    }
    if (value === undefined || (eq < 0 && value.startsWith('--')))
      throw new CliError(`${flag} needs a value`);
    setter(value, options);
  }
  completeLate(options);
  completeMedia(options);
  if (options.credentials) {
    const { email, password } = options.credentials;
    if (!email || !password) throw new CliError('--email and --password must be given together');
  }
  return { help, json, options };
}
