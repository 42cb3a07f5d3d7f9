/**
 * Runs a subject and its baseline back to back `runs` times, alternating which goes first, so a
 * load swing on the shared machine hits both sides of each pair alike (the ratio is per pair).
 */
export async function pairedRuns<T>(
  runs: number,
  baseline: () => Promise<T>,
  subject: () => Promise<T>,
): Promise<{ baseline: T[]; subject: T[] }> {
  const result = { baseline: [] as T[], subject: [] as T[] };
  for (let run = 0; run < runs; run++) {
    if (run % 2 === 0) {
      result.baseline.push(await baseline());
      result.subject.push(await subject());
    } else {
      result.subject.push(await subject());
      result.baseline.push(await baseline());
    }
  }
  return result;
}

/**
 * `pairedRuns` for more than two sides: every run runs each once, back to back, the first of them
 * rotating from run to run (in the order `sides` lists them), so each side goes first, in the
 * middle and last alike. The results by side.
 */
export async function rotatedRuns<K extends string, T>(
  runs: number,
  sides: Record<K, () => Promise<T>>,
): Promise<Record<K, T[]>> {
  const names = Object.keys(sides) as K[];
  const results = Object.fromEntries(names.map((name) => [name, [] as T[]])) as Record<K, T[]>;
  for (let run = 0; run < runs; run++) {
    for (let step = 0; step < names.length; step++) {
      const name = names[(run + step) % names.length] as K;
      results[name].push(await sides[name]());
    }
  }
  return results;
}
