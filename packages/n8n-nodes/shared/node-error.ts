import {
  AuthError,
  HttpError,
  NetworkError,
  ObservationError,
  ValidationError,
} from '@observation-service/core/portable';
import { type INode, type JsonObject, NodeApiError, NodeOperationError } from 'n8n-workflow';

/** Where the address of every request but a media download comes from. */
export const serviceUrlField = 'Service URL in the Observation API credential';

/**
 * What to check when nothing answered: the field the address came from, with the host and port
 * that did not answer (n8n's own wording, "The service refused the connection", names neither).
 */
function unreachable(error: NetworkError, addressField: string): string {
  let where = error.url;
  try {
    where = new URL(error.url).origin;
  } catch {
    // not a URL core could parse: keep it as given (already redacted)
  }
  return `Nothing answered at ${where}. Check the ${addressField} (host and port) and that the service is running there.`;
}

/**
 * Turns anything core throws into the error n8n shows: NodeApiError for answers of the service
 * (status code, the service's own reason), NodeOperationError for refused input and for network
 * trouble. Core's messages are already readable and carry no secrets (URLs are redacted), so
 * they are passed on as they are.
 */
export function toNodeError(
  node: INode,
  error: unknown,
  itemIndex?: number,
  addressField = serviceUrlField,
): NodeApiError | NodeOperationError {
  if (error instanceof NodeApiError || error instanceof NodeOperationError) return error;
  if (HttpError.isInstance(error)) {
    const response: JsonObject = { message: error.message, status: error.status };
    return new NodeApiError(node, response, {
      message: error.message,
      description: error.reason,
      httpCode: String(error.status),
      itemIndex,
    });
  }
  if (AuthError.isInstance(error)) {
    return new NodeApiError(
      node,
      { message: error.message },
      {
        message: error.message,
        description: 'Check the access token (or email and password) and the service ID of the credential.',
        httpCode: '401',
        itemIndex,
      },
    );
  }
  if (ValidationError.isInstance(error)) {
    // The message already says what is allowed ("…; expected …"): said once, not again below it.
    return new NodeOperationError(node, error.message, { itemIndex });
  }
  if (NetworkError.isInstance(error)) {
    // For network codes (ECONNREFUSED, …) n8n shows its own wording and keeps core's message
    // (method, redacted URL, cause) in the error's `messages`, shown as details; the description
    // names the field to fix.
    return new NodeOperationError(node, error.message, {
      itemIndex,
      description: unreachable(error, addressField),
    });
  }
  if (ObservationError.isInstance(error)) {
    return new NodeOperationError(node, error.message, { itemIndex });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new NodeOperationError(node, message, { itemIndex });
}
