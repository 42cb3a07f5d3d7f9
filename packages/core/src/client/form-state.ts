import type { DeploymentForm } from '../realtime/context.js';

/** History `limit` maximum per form (spec section 8). */
export const historyLimitMax: Readonly<Record<DeploymentForm, number>> = { basic: 10_000, extended: 100 };

/**
 * What the client knows about the deployment's form, shared by REST and realtime: the configured
 * form, or in `auto` what was learned (realtime upgrade answers, history limit refusals).
 */
export class FormState {
  private remembered: DeploymentForm | undefined;
  private learnedHistoryMax: number | undefined;
  private readonly largestPages = new Map<string, number>();

  constructor(readonly configured: 'auto' | DeploymentForm) {}

  known(): DeploymentForm | undefined {
    return this.configured === 'auto' ? this.remembered : this.configured;
  }

  remember(form: DeploymentForm): void {
    if (this.configured === 'auto') this.remembered = form;
  }

  /** The history page maximum in force, when known. */
  historyMax(): number | undefined {
    if (this.configured !== 'auto') return historyLimitMax[this.configured];
    if (this.learnedHistoryMax !== undefined) return this.learnedHistoryMax;
    const form = this.remembered;
    return form === undefined ? undefined : historyLimitMax[form];
  }

  /** Records a maximum the server enforced (refusal naming it, or a clamped page). */
  learnHistoryMax(max: number): void {
    if (this.configured === 'auto') this.learnedHistoryMax = max;
  }

  /**
   * What paging has learned of an endpoint's page cap: the largest page it ever returned. The cap
   * is not documented (and some deployments cap below the documented maximum without a word), so a
   * short page only proves the end when it is shorter than a page the endpoint already returned.
   */
  pageMemory(path: string): PageMemory {
    return {
      largest: () => this.largestPages.get(path) ?? 0,
      note: (size) => {
        if (size > (this.largestPages.get(path) ?? 0)) this.largestPages.set(path, size);
      },
    };
  }
}

/** See FormState.pageMemory. */
export interface PageMemory {
  largest(): number;
  note(size: number): void;
}
