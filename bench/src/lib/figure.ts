import { median, round, type Spread, spread } from './stats.ts';

/** What a figure is judged against. `report` figures have no target: they are shown, not judged. */
export type Target =
  | { kind: 'ratio-at-least'; threshold: number }
  | { kind: 'ratio-at-most'; threshold: number }
  | { kind: 'value-below'; threshold: number }
  | { kind: 'value-at-least'; threshold: number }
  | { kind: 'report' };

export interface Baseline extends Spread {
  /** What the baseline is (e.g. "raw ws + JSON.parse"). */
  name: string;
}

/** One row of the table and of results.json. */
export interface Figure {
  id: string;
  scenario: string;
  unit: string;
  /** Median of the subject's runs, with min/max and every run. */
  value: number;
  min: number;
  max: number;
  runs: number[];
  baseline?: Baseline;
  /**
   * Median of the per-round ratios subject/baseline: each round runs the two back to back, so a
   * load swing on the shared machine hits both sides of one ratio alike.
   */
  ratio?: number;
  ratioMin?: number;
  ratioMax?: number;
  target: Target;
  targetText: string;
  /** undefined for report-only figures. */
  pass?: boolean;
  /** Why the run cannot count whatever its value (lost or duplicated events…): the figure fails. */
  problems?: string[];
  /** Anything else worth keeping (CPU per event, delivery checks, sub-measurements). */
  details?: Record<string, unknown>;
}

export function targetText(target: Target, unit: string): string {
  switch (target.kind) {
    case 'ratio-at-least':
      return `ratio ≥ ${target.threshold}`;
    case 'ratio-at-most':
      return `ratio ≤ ${target.threshold}`;
    case 'value-below':
      return `< ${target.threshold.toLocaleString('en')} ${unit}`;
    case 'value-at-least':
      return `≥ ${target.threshold.toLocaleString('en')} ${unit}`;
    case 'report':
      return 'report';
  }
}

function judge(target: Target, value: number, ratio: number | undefined): boolean | undefined {
  switch (target.kind) {
    case 'ratio-at-least':
      return ratio !== undefined && ratio >= target.threshold;
    case 'ratio-at-most':
      return ratio !== undefined && ratio <= target.threshold;
    case 'value-below':
      return value < target.threshold;
    case 'value-at-least':
      return value >= target.threshold;
    case 'report':
      return undefined;
  }
}

export interface FigureInput {
  id: string;
  scenario: string;
  unit: string;
  runs: readonly number[];
  baseline?: { name: string; runs: readonly number[] };
  target: Target;
  digits?: number;
  details?: Record<string, unknown>;
  problems?: string[];
}

/** Builds a figure from paired runs: subject run i and baseline run i were measured back to back. */
export function makeFigure(input: FigureInput): Figure {
  const digits = input.digits ?? 1;
  const subject = spread(input.runs.map((value) => round(value, digits)));
  const figure: Figure = {
    id: input.id,
    scenario: input.scenario,
    unit: input.unit,
    value: round(subject.median, digits),
    min: subject.min,
    max: subject.max,
    runs: subject.runs,
    target: input.target,
    targetText: targetText(input.target, input.unit),
  };
  if (input.baseline) {
    const base = spread(input.baseline.runs.map((value) => round(value, digits)));
    if (base.runs.length !== subject.runs.length) {
      throw new Error(
        `${input.id}: ${subject.runs.length} subject runs but ${base.runs.length} baseline runs`,
      );
    }
    const ratios = input.runs.map((value, index) => value / (input.baseline?.runs[index] as number));
    figure.baseline = { name: input.baseline.name, ...base, median: round(base.median, digits) };
    figure.ratio = round(median(ratios), 3);
    figure.ratioMin = round(Math.min(...ratios), 3);
    figure.ratioMax = round(Math.max(...ratios), 3);
  }
  figure.pass = judge(input.target, figure.value, figure.ratio);
  if (input.problems && input.problems.length > 0) {
    figure.problems = input.problems;
    figure.pass = false;
  }
  if (input.details) figure.details = input.details;
  return figure;
}
