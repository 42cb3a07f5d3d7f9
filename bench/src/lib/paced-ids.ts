/**
 * The latencies of paced events, after checking that the consumer handed over exactly the paced
 * ids: each once. A count alone would pass one lost plus one delivered twice; a latency figure
 * over a stream that lost or repeated events would be measuring something else.
 */
export function pacedLatencies(
  paced: { ids: readonly number[]; sentAt: readonly number[] },
  handled: { ids: readonly (number | undefined)[]; times: readonly number[] },
  label: string,
): number[] {
  const sent = new Map(paced.ids.map((id, index) => [id, paced.sentAt[index] as number]));
  const times = new Map<number, number[]>();
  handled.ids.forEach((id, index) => {
    // Other events (a warm-up one the fresh start found in history) are not the paced ones.
    if (id === undefined || !sent.has(id)) return;
    times.set(id, [...(times.get(id) ?? []), handled.times[index] as number]);
  });
  const lost = paced.ids.filter((id) => !times.has(id));
  const twice = [...times].filter(([, at]) => at.length > 1).map(([id]) => id);
  if (lost.length > 0 || twice.length > 0) {
    throw new Error(
      `${label}: of ${paced.ids.length} paced events ${lost.length} never arrived (${lost.slice(0, 10).join(', ')}) and ${twice.length} arrived more than once (${twice.slice(0, 10).join(', ')})`,
    );
  }
  return paced.ids.map((id) => (times.get(id)?.[0] as number) - (sent.get(id) as number));
}
