/**
 * Text and colour decisions for the status bar and notifications. Pure functions so the
 * exact strings a user sees are pinned by unit tests.
 */

import type { IndexStatus } from './protocol';

/** Budget ratio from which the status bar shows the warning colour (the ledger's default). */
export const WARNING_RATIO = 0.75;
/** Budget ratio from which the status bar shows the error colour. */
export const ERROR_RATIO = 1.0;

export type BudgetSeverity = 'normal' | 'warning' | 'error';

const numberFormat = new Intl.NumberFormat('en-US');

/** `12345` -> `"12,345"`: full counts where exactness matters (symbol totals). */
export function formatCount(value: number): string {
  return numberFormat.format(Math.round(value));
}

/**
 * Compact token amounts for a narrow status bar: `950`, `1.5k`, `38k`, `150k`, `1.2M`.
 * One decimal only below 10 of a unit, where it still carries information.
 */
export function compactTokens(value: number): string {
  const abs = Math.abs(value);
  const sign = value < 0 ? '-' : '';
  const scaled = (amount: number, unit: string): string => {
    const tenths = Math.round(amount * 10) / 10;
    const text = tenths < 10 ? trimZero(tenths.toFixed(1)) : String(Math.round(amount));
    return `${sign}${text}${unit}`;
  };
  if (abs < 1000) {
    return `${sign}${Math.round(abs)}`;
  }
  if (abs < 999_500) {
    return scaled(abs / 1000, 'k');
  }
  return scaled(abs / 1_000_000, 'M');
}

function trimZero(text: string): string {
  return text.endsWith('.0') ? text.slice(0, -2) : text;
}

export function budgetSeverity(ratio: number | null | undefined): BudgetSeverity {
  if (ratio === null || ratio === undefined || !Number.isFinite(ratio)) {
    return 'normal';
  }
  if (ratio >= ERROR_RATIO) {
    return 'error';
  }
  return ratio >= WARNING_RATIO ? 'warning' : 'normal';
}

/** The theme colour id VS Code documents for each severity of a status bar item. */
export function budgetBackgroundColor(severity: BudgetSeverity): string | undefined {
  switch (severity) {
    case 'error':
      return 'statusBarItem.errorBackground';
    case 'warning':
      return 'statusBarItem.warningBackground';
    default:
      return undefined;
  }
}

const HOST_NAMES: Record<string, string> = { 'claude-code': 'Claude Code', codex: 'Codex', codekeep: 'CodeKeep' };

/** `claude-code` -> "Claude Code"; an unknown host as sent. */
export function hostName(host: string): string {
  return HOST_NAMES[host] ?? host;
}

/** "$0.0468"; "unpriced" when no call had a price, ">=$0.0468" when some had none. */
export function costText(cost: number, calls: number, unpriced: number): string {
  const dollars = `$${cost.toFixed(4)}`;
  if (!unpriced) {
    return dollars;
  }
  return unpriced >= calls && cost === 0 ? 'unpriced' : `>=${dollars}`;
}

/** The other agent hosts' spend for the status bar: `"Claude Code $0.0468 · Codex $0.0100"`. */
export function externalHostsText(hosts: { host: string; calls: number; costUsd: number; unpricedCalls: number }[]): string {
  return hosts
    .filter((row) => row.host !== 'codekeep' && row.calls > 0)
    .map((row) => `${hostName(row.host)} ${costText(row.costUsd, row.calls, row.unpricedCalls)}`)
    .join(' · ');
}

/** `"$(pulse) 38k / 150k tokens"`; without a limit just the amount used. */
export function budgetText(used: number, limit: number | null | undefined): string {
  if (!limit || limit <= 0) {
    return `$(pulse) ${compactTokens(used)} tokens`;
  }
  return `$(pulse) ${compactTokens(used)} / ${compactTokens(limit)} tokens`;
}

export function budgetTooltip(
  used: number,
  limit: number | null | undefined,
  taskId: string | null | undefined,
): string {
  const task = taskId ? `Task ${taskId}` : 'Current task';
  if (!limit || limit <= 0) {
    return `${task}: ${formatCount(used)} tokens used (no budget set). Click for the ledger report.`;
  }
  const percent = Math.round((used / limit) * 100);
  return `${task}: ${formatCount(used)} of ${formatCount(limit)} tokens (${percent} %). Click for the ledger report.`;
}

/** Indexing progress: `"CodeKeep: indexing 43 %"`. */
export function indexingText(percentage: number | undefined): string {
  if (percentage === undefined || !Number.isFinite(percentage)) {
    return '$(sync~spin) CodeKeep: indexing';
  }
  const clamped = Math.max(0, Math.min(100, Math.round(percentage)));
  return `$(sync~spin) CodeKeep: indexing ${clamped} %`;
}

/** Settled index: `"CodeKeep: 12,345 symbols"`, or indexing while files are pending. */
export function indexStatusText(status: IndexStatus): string {
  if (!status.ready) {
    // Prefer the background index's own counters; else files known vs still pending.
    const done = status.toIndex ? (status.indexed ?? 0) : status.files;
    const total = status.toIndex ? status.toIndex : status.files + status.pending;
    return indexingText(total > 0 ? (done / total) * 100 : undefined);
  }
  const noun = status.symbols === 1 ? 'symbol' : 'symbols';
  return `$(symbol-class) CodeKeep: ${formatCount(status.symbols)} ${noun}`;
}

export function indexStatusTooltip(status: IndexStatus): string {
  const languages = Object.entries(status.languages ?? {})
    .sort((a, b) => b[1] - a[1])
    .map(([name, files]) => `${name} ${formatCount(files)}`)
    .join(', ');
  const lines = [
    `${formatCount(status.files)} files · ${formatCount(status.symbols)} symbols · ${formatCount(status.references)} references`,
  ];
  if (languages) {
    lines.push(`Languages: ${languages}`);
  }
  if (status.pending > 0) {
    lines.push(`${formatCount(status.pending)} files waiting to be indexed`);
  }
  return lines.join('\n');
}

/**
 * Parses a token amount typed by a user: `150000`, `150,000`, `150k`, `1.5M`.
 * Returns undefined for anything else so the input box can say what is wrong.
 */
export function parseTokenAmount(text: string): number | undefined {
  const match = /^\s*(\d+(?:[.,_]\d+)*)\s*([kKmM]?)\s*$/.exec(text);
  if (!match) {
    return undefined;
  }
  const unit = match[2].toLowerCase();
  const digits = match[1];
  // With a unit, "," or "." is a decimal mark ("1.5k"); without one, a thousands separator.
  const value = unit ? Number(digits.replace(/[,_]/g, '.')) : Number(digits.replace(/[.,_]/g, ''));
  if (!Number.isFinite(value)) {
    return undefined;
  }
  const multiplier = unit === 'k' ? 1000 : unit === 'm' ? 1_000_000 : 1;
  const amount = Math.round(value * multiplier);
  return amount > 0 ? amount : undefined;
}
