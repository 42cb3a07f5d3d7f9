import type { Outage, Recovery, SubscriptionStatus } from '@observation-service/core/portable';
import type { ITriggerFunctions } from 'n8n-workflow';
import { serviceUrlField, toNodeError } from '../../shared/node-error';

/** What a user checks for each reason core gives (the credential's fields by their labels). */
const fixFor: Record<Outage['reason'], string> = {
  credentials: 'Check the Observation API credential (Access Token, or Email and Password)',
  forbidden: 'Check the Service ID in the Observation API credential',
  'not-found': `Check the ${serviceUrlField} (and its WebSocket URL, if set)`,
  unreachable: `Check the ${serviceUrlField} (and its WebSocket URL, if set) and that the service is running`,
  'service-error': 'The service may come back by itself',
  other: 'See the detail above',
};

/**
 * What the trigger tells n8n about its stream, as core decides it: why it is down, once per
 * outage, and when it is back; each retry only at debug level; a final failure on the workflow.
 */
export function triggerLog(context: ITriggerFunctions) {
  const name = 'Observation Trigger';
  return {
    // Malformed messages, failed catch-ups: reported, the stream goes on. (A task list that cannot
    // be read is part of the outage told below: core tells it there, once.)
    onError: (error: Error) => context.logger.warn(`${name}: ${error.message}`),
    onOutage: (outage: Outage) =>
      context.logger.warn(
        `${name}: ${outage.text} (${outage.detail}). ${fixFor[outage.reason]}; the trigger keeps trying.`,
      ),
    onRecovered: (recovery: Recovery) =>
      context.logger.info(`${name}: connected again after ${Math.round(recovery.downMs / 1000)} s.`),
    onStatus: (status: SubscriptionStatus) => {
      if (status.retryingAfter !== undefined)
        context.logger.debug(`${name}: ${status.state} (attempt ${status.attempt}): ${status.retryingAfter}`);
      // A final failure (bad token, service id refused): n8n shows it on the workflow.
      if (status.state === 'failed')
        context.emitError(
          toNodeError(context.getNode(), status.failure ?? new Error('The event stream failed')),
        );
    },
  };
}
