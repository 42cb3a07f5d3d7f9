import type { ICredentialType, Icon, INodeProperties } from 'n8n-workflow';

/**
 * Connection to one Observation Service deployment. The nodes hand these values to the
 * Observation core client, which derives the API and WebSocket addresses, logs in (email +
 * password) or uses the token, and adds the auth headers; n8n's own request signing is not used.
 * Tested by the nodes' `observationApiTest` method (a cheap read through the core client).
 */
export class ObservationApi implements ICredentialType {
  name = 'observationApi';

  displayName = 'Observation API';

  icon: Icon = { light: 'file:../icons/observation.svg', dark: 'file:../icons/observation.dark.svg' };

  documentationUrl =
    'https://github.com/observation-service/observation-service-integrations/tree/main/packages/n8n-nodes#credentials';

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
          description: 'Logs in once, reuses the token and renews it before it expires',
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
        "Whether the action node and the Task Trigger connect even if the TLS certificate cannot be verified. The Observation Trigger's realtime connection cannot skip the check (it uses the runtime WebSocket): give n8n your CA with NODE_EXTRA_CA_CERTS instead",
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
}
