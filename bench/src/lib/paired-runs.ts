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
 * `pairedRuns` for more than two sides: every run runs each once, back to back, in the order
 * `sides` lists them on even runs and the reverse on odd ones. Sides listed next to each other stay
 * next to each other, each first as often as the other. The results by side.
 */
export async function alternatingRuns<K extends string, T>(
  runs: number,
  sides: Record<K, () => Promise<T>>,
): Promise<Record<K, T[]>> {
  const names = Object.keys(sides) as K[];
  const results = Object.fromEntries(names.map((name) => [name, [] as T[]])) as Record<K, T[]>;
  for (let run = 0; run < runs; run++) {
    for (const name of run % 2 === 0 ? names : [...names].reverse()) {
      results[name].push(await sides[name]());
    }
  }
  return results;
}
