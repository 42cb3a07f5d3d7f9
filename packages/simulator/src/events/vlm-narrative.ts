/**
 * The free-text part of a VLM answer ("Scene description", "Summary"). A vision-language model
 * asked to describe a scene answers in one clause or in a paragraph, so the length of its answer
 * varies widely from event to event; that is what makes rows of one history page differ in size
 * (see `historyPageBytes`).
 *
 * A fixed table of continuations is built once; each record picks one by a hash of (seed, id),
 * outside the record's random stream, so every other field of an event stays what it was and
 * the pick costs one hash on the push path.
 */
import { hash2, Rng } from '../random.js';

const SENTENCES = [
  'The area is well lit and the camera view is unobstructed.',
  'A second person enters from the left edge of the frame shortly after.',
  'The person is wearing a dark jacket and carries a backpack.',
  'No vehicle is moving in the scene at the time of the snapshot.',
  'Reflections on the wet floor make part of the lower image hard to read.',
  'The gate on the right side is open and nobody is guarding it.',
  'Boxes are stacked close to the emergency exit, partly blocking it.',
  'The figure stays near the fence for the whole observed period.',
  'Light rain is visible against the floodlight.',
  'A forklift is parked with its forks raised, which is against site rules.',
  'The individual appears to be looking at a phone and does not notice the marking.',
  'There is a faint haze near the ceiling that could be dust or early smoke.',
  'Two workers wear high-visibility vests, a third does not.',
  'The scene matches the zone configured for this task; the object is fully inside it.',
  'The license plate is partly covered by dirt and cannot be read with confidence.',
  'Confidence is lowered because the subject is partially occluded by a pillar.',
  'The camera image is slightly overexposed on the left third.',
  'Nothing in the frame suggests an emergency vehicle or first responders.',
];

/** How many sentences follow the first clause, by table entry: most answers are short, a few are paragraphs. */
const SENTENCE_COUNTS = [
  ...Array<number>(24).fill(0),
  ...Array<number>(12).fill(1),
  ...Array<number>(8).fill(2),
  4,
  3,
  5,
  4,
  6,
  3,
  5,
  7,
  9,
  10,
  12,
  8,
  14,
  16,
  18,
  20,
  11,
  22,
  15,
  24,
];

const TABLE_SALT = 0x7ab1e;
const PICK_SALT = 0x9a77;

const CONTINUATIONS: readonly string[] = (() => {
  const rng = new Rng(TABLE_SALT);
  return SENTENCE_COUNTS.map((count) => {
    let text = '';
    for (let n = 0; n < count; n++) text += ` ${rng.pick(SENTENCES)}`;
    return count === 0 ? '' : `.${text}`;
  });
})();

/** What follows the first clause of record `id`'s free-text VLM answer ('' for a one-clause answer). */
export function vlmContinuation(seed: number, id: number): string {
  return CONTINUATIONS[hash2(seed ^ PICK_SALT, id) % CONTINUATIONS.length] as string;
}
