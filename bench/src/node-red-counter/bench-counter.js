// The end of every benchmark flow: counts the messages that reach it and records when (the
// suite's shared monotonic clock) by record id. Node-RED require()s this file itself, so it
// talks to the bootstrap (children/node-red-runtime.ts) through a process-wide object.
const TALLY = Symbol.for('observation-bench-tally');

const IMAGES = Symbol.for('observation-bench-images');

/** Messages that carried an annotated snapshot, and those flagged with a missing image. */
function images() {
  globalThis[IMAGES] ??= { annotated: 0, missing: 0 };
  return globalThis[IMAGES];
}

function tally() {
  globalThis[TALLY] ??= { received: 0, lastAt: 0, recordTimes: false, ids: [], times: [] };
  return globalThis[TALLY];
}

module.exports = (RED) => {
  function BenchCounter(config) {
    RED.nodes.createNode(this, config);
    this.on('input', (msg, _send, done) => {
      const state = tally();
      const at = Number(process.hrtime.bigint()) / 1e6;
      state.received++;
      if (Buffer.isBuffer(msg.annotated)) images().annotated++;
      if (Array.isArray(msg.missingImages)) images().missing++;
      state.lastAt = at;
      if (state.recordTimes) {
        state.ids.push(msg.payload?.id);
        state.times.push(at);
      }
      done();
    });
  }
  RED.nodes.registerType('bench-counter', BenchCounter);
};
