import { type INodeTypeBaseDescription, type IVersionedNodeType, VersionedNodeType } from 'n8n-workflow';
import { ObservationTaskTriggerV1 } from './v1/task-trigger-v1';
import { ObservationTaskTriggerV2 } from './v2/task-trigger-v2';

/**
 * Version 2 is an n8n polling trigger (Poll Times, statuses in the workflow's static data, so a
 * change while n8n was stopped is reported at the next poll); new nodes get it. Version 1 ran its
 * own loop with statuses in memory and stays for the workflows saved with it, as n8n versions
 * its own nodes.
 */
export class ObservationTaskTrigger extends VersionedNodeType {
  constructor() {
    const baseDescription: INodeTypeBaseDescription = {
      displayName: 'Observation Task Trigger',
      name: 'observationTaskTrigger',
      icon: { light: 'file:../../icons/observation.svg', dark: 'file:../../icons/observation.dark.svg' },
      group: ['trigger'],
      description: "Starts the workflow when a task's status changes, or a task is added or removed",
      documentationUrl:
        'https://github.com/observation-service/observation-service-integrations/tree/main/packages/n8n-nodes#observation-task-trigger',
      defaultVersion: 2,
    };
    const nodeVersions: IVersionedNodeType['nodeVersions'] = {
      1: new ObservationTaskTriggerV1(baseDescription),
      2: new ObservationTaskTriggerV2(baseDescription),
    };
    super(nodeVersions, baseDescription);
  }
}
