import type { DeploymentForm } from '../context/form-state.js';
import { ValidationError } from '../errors/validation-error.js';
import { describeValue } from '../validation/describe-value.js';
import type { RealtimeContext } from './context.js';
import type { SubscribeOptions, SubscriptionHandlers } from './types.js';

/** Exactly one of onEvent and onBatch, optional functions otherwise; batch options only with onBatch. */
export function checkHandlers(
  handlers: unknown,
  options: SubscribeOptions | undefined,
): asserts handlers is SubscriptionHandlers {
  const allowed =
    'an object { onEvent(event, meta) or onBatch(batch), onStateChange?(state, info), onError?(error), onOutage?(outage), onRecovered?(recovery), onGiveUp?(given) }';
  if (handlers === null || typeof handlers !== 'object') {
    throw new ValidationError('handlers', describeValue(handlers), allowed);
  }
  const record = handlers as Record<string, unknown>;
  const onEvent = typeof record.onEvent === 'function';
  const onBatch = typeof record.onBatch === 'function';
  if (onEvent === onBatch) {
    const given = onEvent ? 'both onEvent and onBatch' : describeValue(record.onEvent ?? record.onBatch);
    throw new ValidationError(
      'handlers.onEvent',
      given,
      'exactly one of onEvent(event, meta) and onBatch(batch)',
    );
  }
  for (const name of ['onStateChange', 'onError', 'onOutage', 'onRecovered', 'onGiveUp']) {
    if (record[name] !== undefined && typeof record[name] !== 'function') {
      throw new ValidationError(`handlers.${name}`, describeValue(record[name]), 'a function or nothing');
    }
  }
  if (onEvent && options?.batch !== undefined) {
    throw new ValidationError(
      'options.batch',
      'batch options with onEvent',
      'batch options only with handlers.onBatch',
    );
  }
}

/** Extended needs a service id; `auto` tries extended when there is one and remembers what worked. */
export function chooseForm(context: RealtimeContext): DeploymentForm {
  const known = context.knownForm();
  const form = context.form === 'auto' ? (known ?? (context.serviceId ? 'extended' : 'basic')) : context.form;
  if (form === 'extended' && !context.serviceId) {
    throw new ValidationError(
      'serviceId',
      'nothing',
      "the service id of the workspace (the extended realtime address needs it), or form 'basic'",
    );
  }
  return form;
}
