import type { StateChangeInfo, SubscriptionState } from '@observation-service/core/portable';
import type { ITriggerFunctions } from 'n8n-workflow';
import { serviceUrlField, toNodeError } from '../../shared/node-error';

/** What the trigger tells n8n about its stream: warnings in n8n's log, a final failure on the workflow. */
export function triggerLog(context: ITriggerFunctions) {
  return {
    // Malformed messages, failed catch-ups: reported, the stream goes on.
    onError: (error: Error) => context.logger.warn(`Observation Trigger: ${error.message}`),
    onStateChangeActive: (state: SubscriptionState, info: StateChangeInfo) => {
      if (state === 'connecting' && info.error) {
        // Never connected since activation: the address may be wrong, so the log names its field.
        context.logger.warn(
          `Observation Trigger: cannot connect to the service (attempt ${info.attempt ?? 1}): ${info.error.message}. Check the ${serviceUrlField} (and its WebSocket URL, if set) and that the service is running; the trigger keeps trying.`,
        );
      }
      if (state === 'reconnecting' && info.error) {
        // Core reconnects by itself; the log says why the stream paused. (A quiet stream's
        // watchdog reconnect is not reported: core reports only a reconnect that fails.)
        context.logger.warn(
          `Observation Trigger: reconnecting (attempt ${info.attempt ?? 1}): ${info.error.message}`,
        );
      }
      // A final failure (bad token, service id refused): n8n shows it on the workflow.
      if (state === 'failed')
        context.emitError(toNodeError(context.getNode(), info.error ?? new Error('The event stream failed')));
    },
  };
}
