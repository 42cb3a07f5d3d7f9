import type { FlowNode } from './dashboard-red.js';

export const TAB = 'tab-gallery';
export const PAGE_PATH = '/dashboard/events';

export interface SimulatorAddress {
  apiUrl: string;
  serviceId: string;
  token: string;
}

/** The colours of a Dashboard 2 `ui-theme` node. */
export interface ThemeColors {
  surface: string;
  primary: string;
  bgPage: string;
  groupBg: string;
  groupOutline: string;
}

/** Dashboard 2's own default theme (what a new dashboard gets). */
export const LIGHT_THEME: ThemeColors = {
  surface: '#ffffff',
  primary: '#0094ce',
  bgPage: '#eeeeee',
  groupBg: '#ffffff',
  groupOutline: '#cccccc',
};

/** The colours of Dashboard 2's "dark" theme preset (its ui-theme editor offers it). */
export const DARK_THEME: ThemeColors = {
  surface: '#18191b',
  primary: '#0d74ce',
  bgPage: '#111113',
  groupBg: '#212225',
  groupOutline: '#363a3f',
};

/** A tab, the server config node, and a dashboard (base, theme, page, group). */
export function dashboardFlow(sim: SimulatorAddress, colors: ThemeColors = LIGHT_THEME): FlowNode[] {
  return [
    { id: TAB, type: 'tab', label: 'gallery tests' },
    {
      id: 'server-1',
      type: 'observation-server',
      name: 'simulator',
      url: sim.apiUrl,
      wsUrl: '',
      serviceId: sim.serviceId,
      form: 'auto',
      authType: 'token',
      trustedMediaHosts: '',
      credentials: { token: sim.token },
    },
    { id: 'ui-base-1', type: 'ui-base', name: 'Observation', path: '/dashboard' },
    {
      id: 'ui-theme-1',
      type: 'ui-theme',
      name: 'Default',
      colors,
    },
    {
      id: 'ui-page-1',
      type: 'ui-page',
      name: 'Events',
      ui: 'ui-base-1',
      path: '/events',
      layout: 'grid',
      theme: 'ui-theme-1',
      order: 1,
      visible: 'true',
      disabled: false,
    },
    {
      id: 'ui-group-1',
      type: 'ui-group',
      name: 'Latest events',
      page: 'ui-page-1',
      width: '12',
      height: '1',
      order: 1,
      showTitle: true,
      visible: 'true',
      disabled: 'false',
    },
  ];
}

export function eventsNode(id: string, wires: string[], overrides: Record<string, unknown> = {}): FlowNode {
  return {
    id,
    type: 'observation-events',
    z: TAB,
    name: '',
    server: 'server-1',
    taskMode: 'all',
    tasks: [],
    taskIds: '',
    eventNames: '',
    minConfidence: '',
    objectNames: '',
    warningsOnly: false,
    attachSnapshot: false,
    attachAnnotated: true,
    lookBackMinutes: 0,
    wires: [wires],
    ...overrides,
  };
}

export function galleryNode(id: string, overrides: Record<string, unknown> = {}): FlowNode {
  return {
    id,
    type: 'ui-observation-gallery',
    z: TAB,
    name: '',
    group: 'ui-group-1',
    server: 'server-1',
    maxCards: 12,
    maxImageMegabytes: 16,
    order: 1,
    width: 0,
    height: 0,
    wires: [],
    ...overrides,
  };
}

/** An inject node whose button sends `payload` (JSON) to `wires`. */
export function injectNode(id: string, payload: unknown, wires: string[]): FlowNode {
  return {
    id,
    type: 'inject',
    z: TAB,
    name: '',
    props: [{ p: 'payload' }],
    repeat: '',
    crontab: '',
    once: false,
    onceDelay: 0.1,
    topic: '',
    payload: JSON.stringify(payload),
    payloadType: 'json',
    wires: [wires],
  };
}
