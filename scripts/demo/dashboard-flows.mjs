// The demo's second tab, "Dashboard": live events of every task, with the annotated snapshot
// attached, into the event gallery widget (@observation-service/node-red-dashboard-2-observation-gallery)
// on a Dashboard 2 page. The gallery fetches clips and task/location names through the same
// "demo simulator" config node as the first tab; the browser only ever talks to Node-RED.
import { eventsNodeSettings } from './events-node-settings.mjs';

export const DASHBOARD_TAB_ID = 'demo-dashboard-tab';
/** The page's path under the dashboard's own path (`/dashboard`), itself under httpNodeRoot. */
export const DASHBOARD_PAGE_PATH = '/dashboard/events';

export const DASHBOARD_IDS = {
  events: 'demo-dashboard-events',
  gallery: 'demo-dashboard-gallery',
  base: 'demo-ui-base',
  theme: 'demo-ui-theme',
  page: 'demo-ui-page',
  group: 'demo-ui-group',
};

/**
 * @param {{ serverId: string, maxCards?: number }} options
 */
export function dashboardFlows({ serverId, maxCards = 24 }) {
  const ids = DASHBOARD_IDS;
  return [
    {
      id: DASHBOARD_TAB_ID,
      type: 'tab',
      label: 'Dashboard',
      disabled: false,
      info: 'The live event gallery on a Dashboard 2 page: open the dashboard address the demo printed.',
    },
    {
      id: 'demo-dashboard-note',
      type: 'comment',
      z: DASHBOARD_TAB_ID,
      name: 'Live event gallery: open the dashboard address the demo printed (…/dashboard/events)',
      info: 'Images and clips are served by Node-RED under /api/observation-gallery/… with random ids: the browser never sees the service token.',
      x: 350,
      y: 60,
      wires: [],
    },
    {
      id: ids.events,
      type: 'observation-events',
      z: DASHBOARD_TAB_ID,
      name: 'all tasks, annotated',
      server: serverId,
      ...eventsNodeSettings,
      attachAnnotated: true,
      // The last hour of history fills the gallery at once (the default, said for this reason).
      lookBackMinutes: 60,
      x: 180,
      y: 120,
      wires: [[ids.gallery]],
    },
    {
      id: ids.gallery,
      type: 'ui-observation-gallery',
      z: DASHBOARD_TAB_ID,
      name: 'event gallery',
      group: ids.group,
      server: serverId,
      maxCards,
      maxImageMegabytes: 64,
      order: 1,
      width: 0,
      height: 0,
      x: 440,
      y: 120,
      wires: [],
    },
    {
      id: ids.base,
      type: 'ui-base',
      name: 'Observation demo',
      path: '/dashboard',
      navigationStyle: 'default',
    },
    {
      id: ids.theme,
      type: 'ui-theme',
      name: 'Observation',
      colors: {
        surface: '#1f3b57',
        primary: '#3a7bd5',
        bgPage: '#eef1f5',
        groupBg: '#ffffff',
        groupOutline: '#cccccc',
      },
    },
    {
      id: ids.page,
      type: 'ui-page',
      name: 'Events',
      ui: ids.base,
      path: '/events',
      icon: 'camera',
      layout: 'grid',
      theme: ids.theme,
      order: 1,
      visible: 'true',
      disabled: false,
    },
    {
      id: ids.group,
      type: 'ui-group',
      name: 'Latest camera events',
      page: ids.page,
      width: '12',
      height: '1',
      order: 1,
      showTitle: true,
      visible: 'true',
      disabled: 'false',
    },
  ];
}
