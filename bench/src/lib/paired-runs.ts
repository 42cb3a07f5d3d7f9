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
