// The observation events node's settings at the editor's defaults, for the demo's flows: every
// field the editor shows is set, so a demo node opened in the editor has none blank. A flow
// spreads these and sets what it changes after them.
export const eventsNodeSettings = {
  taskMode: 'all',
  tasks: [],
  taskIds: '',
  eventNames: '',
  minConfidence: '',
  objectNames: '',
  warningsOnly: false,
  attachSnapshot: false,
  attachAnnotated: false,
  mediaWait: 10,
  lookBackMinutes: 60,
  allowedLateness: 120,
  ackMode: 'sent',
  ackTimeout: 60,
  ackTimeoutAction: 'release',
  ackAttempts: 3,
  maxInFlight: 10,
  cooldownMinutes: 0,
  cooldownPer: 'camera',
  ackRetry: 'now',
  ackRetryPauses: '30s, 2m, 10m',
  givenUpOutput: false,
  outputs: 1,
};
