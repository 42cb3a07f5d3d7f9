// Figures of a queue-mode run, from n8n's execution records: executions per second and the
// end-to-end latency (simulator push -> execution stoppedAt) percentiles.

export function percentile(sorted, p) {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index];
}

/**
 * `executions`: successful executions of one phase; `pushedAt`: record id -> push time. Latency
 * is per event, from its push to the end of the execution that carried it.
 */
export function phaseFigures(executions, pushedAt) {
  const latencies = [];
  for (const execution of executions) {
    for (const id of execution.eventIds) {
      const pushed = pushedAt.get(id);
      if (pushed !== undefined && execution.stoppedAt !== undefined)
        latencies.push(execution.stoppedAt - pushed);
    }
  }
  latencies.sort((a, b) => a - b);
  const first = Math.min(...executions.map((e) => e.createdAt ?? Number.POSITIVE_INFINITY));
  const last = Math.max(...executions.map((e) => e.stoppedAt ?? 0));
  const seconds = (last - first) / 1000;
  return {
    executions: executions.length,
    executionsPerSecond: seconds > 0 ? executions.length / seconds : Number.NaN,
    latencyP50Ms: percentile(latencies, 50),
    latencyP99Ms: percentile(latencies, 99),
    latencySamples: latencies.length,
  };
}
