/** The two generations of the service (spec sections 2.1 and 4.1). */
export type DeploymentForm = 'basic' | 'extended';
/** What a client is configured with: one form, or `auto` to find out. */
export type ClientForm = 'auto' | DeploymentForm;

/** History `limit` maximum per form (spec section 8). */
export const historyLimitMax: Readonly<Record<DeploymentForm, number>> = { basic: 10_000, extended: 100 };

/**
 * What the client knows about the deployment's form, shared by REST and realtime: the configured
 * form, or in `auto` what was learned (realtime upgrade answers, history limit refusals).
 */
export class FormState {
  private remembered: DeploymentForm | undefined;
  private learnedHistoryMax: number | undefined;

  constructor(readonly configured: ClientForm) {}

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
}
