import type { Figure } from './figure.ts';

function number(value: number | undefined): string {
  if (value === undefined || Number.isNaN(value)) return '—';
  const digits = Math.abs(value) >= 1000 ? 0 : Math.abs(value) >= 10 ? 1 : 3;
  return value.toLocaleString('en', { maximumFractionDigits: digits, minimumFractionDigits: 0 });
}

function verdict(figure: Figure): string {
  if (figure.pass === undefined) return 'report';
  return figure.pass ? 'PASS' : 'FAIL';
}

/** The one table `npm run bench` prints: a row per figure, medians with min–max. */
export function renderTable(figures: readonly Figure[]): string {
  const header = [
    'id',
    'scenario',
    'median',
    'min–max',
    'unit',
    'baseline (median)',
    'ratio',
    'target',
    'result',
  ];
  const rows = figures.map((figure) => [
    figure.id,
    figure.scenario,
    number(figure.value),
    `${number(figure.min)}–${number(figure.max)}`,
    figure.unit,
    figure.baseline ? `${number(figure.baseline.median)} (${figure.baseline.name})` : '—',
    figure.ratio === undefined ? '—' : figure.ratio.toFixed(3),
    figure.targetText,
    verdict(figure),
  ]);
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column] as number))
      .join(' │ ')
      .trimEnd();
  const rule = widths.map((width) => '─'.repeat(width)).join('─┼─');
  const notes = figures
    .filter((figure) => figure.problems && figure.problems.length > 0)
    .flatMap((figure) => (figure.problems ?? []).map((problem) => `  ${figure.id}: ${problem}`));
  return [
    line(header),
    rule,
    ...rows.map(line),
    ...(notes.length > 0 ? ['', 'problems:', ...notes] : []),
  ].join('\n');
}
