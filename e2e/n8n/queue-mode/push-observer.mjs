// A second realtime subscriber to the simulator (all tasks), in this process: when each event
// arrived here is when the simulator pushed it, over the same loopback, to within a millisecond.
// That is the start of the end-to-end latency (pushed -> execution finished in n8n's records).

/** Opens the socket; `pushedAt` maps record id -> first arrival (epoch ms). */
export async function startPushObserver(sim) {
  const pushedAt = new Map();
  const url = `${sim.wsUrl}/events/realtime/${encodeURIComponent(sim.serviceId)}/0?token=${encodeURIComponent(sim.token)}`;
  const socket = new WebSocket(url);
  socket.addEventListener('message', (message) => {
    const now = Date.now();
    let event;
    try {
      event = JSON.parse(typeof message.data === 'string' ? message.data : String(message.data));
    } catch {
      return;
    }
    if (Number.isInteger(event?.id) && !pushedAt.has(event.id)) pushedAt.set(event.id, now);
  });
  await new Promise((resolve, reject) => {
    socket.addEventListener('open', resolve, { once: true });
    socket.addEventListener(
      'error',
      () => reject(new Error(`push observer could not connect to ${sim.wsUrl}`)),
      {
        once: true,
      },
    );
  });
  return {
    pushedAt,
    close: () => socket.close(),
  };
}
