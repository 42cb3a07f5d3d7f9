import type {
  ICredentialDataDecryptedObject,
  ICredentialTestRequest,
  ICredentialType,
  Icon,
  IDataObject,
  IHttpRequestHelper,
  IHttpRequestOptions,
  INodeProperties,
} from 'n8n-workflow';
import {
  accessTokenChecked,
  apiUrlExpression,
  loginFailure,
  nothingAnswered,
  signingHeaders,
} from './observation-login';

/**
 * Connection to one Observation Service deployment, built the n8n way: n8n signs requests with
 * `authenticate` (Bearer token and X-Service-Id, as every REST call of a deployment needs), logs
 * in with `preAuthentication` and keeps the token in the credential itself (the hidden, expirable
 * `sessionToken`), and runs the `test` request. So the token is shared by every n8n process (main
 * and queue-mode workers), renewed by n8n when the service refuses it, and the credential works in
 * n8n's HTTP Request node. The Observation nodes take the token from here too (through core's
 * `auth.getToken`, see shared/session-token.ts); this file must not import core.
 */
export class ObservationApi implements ICredentialType {
  name = 'observationApi';

  displayName = 'Observation API';

  icon: Icon = { light: 'file:../icons/observation.svg', dark: 'file:../icons/observation.dark.svg' };

  documentationUrl =
    'https://github.com/observation-service/observation-service-integrations/tree/main/packages/n8n-nodes#credentials';

  httpRequestNode = {
    name: 'Observation Service',
    docsUrl:
      'https://github.com/observation-service/observation-service-integrations/tree/main/packages/n8n-nodes#credentials',
    apiBaseUrlPlaceholder: 'https://observ.example.com/observ/apiserver/tasks',
  };

  properties: INodeProperties[] = [
    {
      displayName: 'Service URL',
      name: 'url',
      type: 'string',
      default: '',
      required: true,
      placeholder: 'https://observ.example.com/observ',
      description:
        'Address of the deployment: the site URL, the API URL (ending in /apiserver) or its ws(s) URL. The other addresses are derived from it.',
    },
    {
      displayName: 'WebSocket URL',
      name: 'wsUrl',
      type: 'string',
      default: '',
      placeholder: 'wss://observ.example.com/observ/apiserver',
      description: 'Only when realtime events come from another host or port than the Service URL',
    },
    {
      displayName: 'Service ID',
      name: 'serviceId',
      type: 'string',
      default: '',
      description:
        'Workspace ID, shown in the product under System Management → API Configuration. Leave empty for basic (older) deployments, which have none.',
    },
    {
      displayName: 'Authentication',
      name: 'authentication',
      type: 'options',
      default: 'accessToken',
      options: [
        { name: 'Access Token', value: 'accessToken' },
        {
          name: 'Email and Password',
          value: 'emailPassword',
          description:
            'n8n logs in once and keeps the token with the credential, for every workflow and worker; it logs in again when the service refuses the token',
        },
      ],
    },
    {
      displayName: 'Access Token',
      name: 'accessToken',
      type: 'string',
      typeOptions: { password: true },
      default: '',
      required: true,
      displayOptions: { show: { authentication: ['accessToken'] } },
    },
    {
      displayName: 'Email',
      name: 'email',
      type: 'string',
      placeholder: 'name@email.com',
      default: '',
      required: true,
      displayOptions: { show: { authentication: ['emailPassword'] } },
    },
    {
      displayName: 'Password',
      name: 'password',
      type: 'string',
      typeOptions: { password: true },
      default: '',
      required: true,
      displayOptions: { show: { authentication: ['emailPassword'] } },
    },
    {
      // Filled by preAuthentication (email and password) and saved with the credential by n8n.
      displayName: 'Session Token',
      name: 'sessionToken',
      type: 'hidden',
      typeOptions: { expirable: true, password: true },
      default: '',
    },
    {
      // Derived from the Service URL as core derives it, for the login, the test and the HTTP Request node's users.
      displayName: 'API URL',
      name: 'apiUrl',
      type: 'hidden',
      default: apiUrlExpression,
    },
    {
      displayName: 'Deployment Form',
      name: 'form',
      type: 'options',
      default: 'auto',
      options: [
        { name: 'Auto-Detect', value: 'auto', description: 'Detect the form from the deployment' },
        {
          name: 'Basic (Older)',
          value: 'basic',
          description: 'One realtime connection per task, no service ID, history limit up to 10000',
        },
        {
          name: 'Extended (Current)',
          value: 'extended',
          description: 'Service ID required, all tasks on one connection, history limit up to 100',
        },
      ],
    },
    {
      displayName: 'Trusted Media Hosts',
      name: 'trustedMediaHosts',
      type: 'string',
      default: '',
      placeholder: 'https://cdn.example.com, https://media.example.com',
      description:
        'Comma-separated origins (besides the service itself) that may receive the access token when snapshots and clips are downloaded. Media on any other host is refused.',
    },
    {
      displayName: 'Allow Self-Signed Certificates',
      name: 'allowSelfSigned',
      type: 'boolean',
      default: false,
      description:
        "Whether the action node, the Task Trigger, the login and the credential test connect even if the TLS certificate cannot be verified. The Observation Trigger's realtime connection cannot skip the check (the WebSocket built into Node.js takes no certificate options): give n8n your CA with NODE_EXTRA_CA_CERTS instead",
    },
    {
      displayName:
        'Certificate checks are off: anyone between n8n and the service can read the token and the events. Use only on a trusted network. The Observation Trigger will not start with this on: its realtime connection always verifies certificates. Set NODE_EXTRA_CA_CERTS=/path/to/ca.pem for n8n and turn this off instead.',
      name: 'selfSignedNotice',
      type: 'notice',
      default: '',
      displayOptions: { show: { allowSelfSigned: [true] } },
    },
  ];

  /**
   * Runs when `sessionToken` is empty or the service refused it (n8n then saves the answer with the
   * credential), and at every credential test (n8n 2.41 runs it for the test's stand-in node
   * whatever the field holds). An address that cannot be an Observation API is refused here,
   * whatever the mode, and so is one where nothing answers: the login's request, or with an
   * access token one read of the task list, fails naming the Service URL (the test's own request
   * would show only the network code).
   */
  async preAuthentication(
    this: IHttpRequestHelper,
    credentials: ICredentialDataDecryptedObject,
  ): Promise<IDataObject> {
    const apiUrl = typeof credentials.apiUrl === 'string' ? credentials.apiUrl : '';
    if (apiUrl === '') {
      // Said here for both modes: n8n's own message for the request would be a bare ERR_INVALID_URL.
      throw loginFailure(
        'The Service URL is not an http(s) or ws(s) address: enter the site URL (https://host/observ), the API URL (…/apiserver) or its wss:// URL',
      );
    }
    if (credentials.authentication !== 'emailPassword') {
      // No login: whether anything answers at the address. Any HTTP answer will do (the test's
      // request then judges it); other failures (a certificate) are n8n's as before.
      try {
        await this.helpers.httpRequest({
          method: 'GET',
          url: `${apiUrl}/tasks`,
          qs: { limit: 1 },
          headers: signingHeaders(credentials),
          json: true,
          returnFullResponse: true,
          ignoreHttpStatusErrors: true,
          skipSslCertificateValidation: credentials.allowSelfSigned === true,
        });
      } catch (error) {
        throw nothingAnswered(apiUrl, error) ?? error;
      }
      return { sessionToken: accessTokenChecked };
    }
    const url = `${apiUrl}/users/token`;
    const headers: IDataObject = { accept: 'application/json' };
    const serviceId = typeof credentials.serviceId === 'string' ? credentials.serviceId.trim() : '';
    if (serviceId !== '') headers['X-Service-Id'] = serviceId;
    let answer: { statusCode?: number; body?: unknown };
    try {
      answer = (await this.helpers.httpRequest({
        method: 'POST',
        url,
        headers,
        body: { email: credentials.email, password: credentials.password },
        json: true,
        returnFullResponse: true,
        // Statuses are read here: n8n would otherwise retry a refused login at once (the
        // endpoint is rate-limited), and its message would not say that the login failed.
        ignoreHttpStatusErrors: true,
        skipSslCertificateValidation: credentials.allowSelfSigned === true,
      })) as typeof answer;
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw nothingAnswered(apiUrl, error) ?? loginFailure(`Could not reach the login at ${url}: ${reason}`);
    }
    const status = answer.statusCode ?? 0;
    const token = (answer.body as { access_token?: unknown } | undefined)?.access_token;
    if (status >= 200 && status < 300 && typeof token === 'string' && token !== '') {
      return { sessionToken: token };
    }
    // No login at this address is a wrong Service URL, not a wrong password: say which to fix.
    if (status === 404) {
      throw loginFailure(`No login at ${url} (HTTP 404). Check the Service URL.`, status);
    }
    throw loginFailure(
      status >= 200 && status < 300
        ? `The login at ${url} answered without an access token`
        : `The service refused the login (HTTP ${status})`,
      status,
      answer.body,
    );
  }

  /**
   * Signs a request in code, not with `={{ $credentials… }}` expressions: n8n evaluates a
   * credential's expressions in the workflow's expression sandbox, which exists only while an
   * execution or an activation runs. A trigger renews its login long after activation (a token
   * expires after 24 hours), and there an expression fails with n8n's "No bridge acquired for
   * this context", so the trigger could never log in again.
   */
  async authenticate(
    credentials: ICredentialDataDecryptedObject,
    requestOptions: IHttpRequestOptions,
  ): Promise<IHttpRequestOptions> {
    return { ...requestOptions, headers: { ...requestOptions.headers, ...signingHeaders(credentials) } };
  }

  test: ICredentialTestRequest = {
    request: {
      baseURL: '={{ $credentials.apiUrl }}',
      url: '/tasks',
      qs: { limit: 1 },
      skipSslCertificateValidation: '={{ $credentials.allowSelfSigned }}',
    },
    rules: [
      {
        type: 'responseCode',
        properties: {
          value: 401,
          message:
            'The service refused the access token (HTTP 401). Check the Access Token, or the Email and Password.',
        },
      },
      {
        type: 'responseCode',
        properties: {
          value: 403,
          message:
            'The service refused the request (HTTP 403). Check the Service ID (System Management → API Configuration); leave it empty for basic deployments.',
        },
      },
      {
        type: 'responseCode',
        properties: {
          value: 404,
          message:
            'No Observation API at this address (HTTP 404 for the task list, /tasks under the API URL made from the Service URL). Check the Service URL: the site URL (https://host/observ) or its API URL (…/apiserver).',
        },
      },
    ],
  };
}
