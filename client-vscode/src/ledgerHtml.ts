/**
 * The Ledger Report webview: server JSON -> one self-contained HTML page. Pure so the
 * page can be checked without VS Code. No network resources: styles and the chart are
 * inline (SVG), guarded by a strict Content-Security-Policy with a per-render nonce, and
 * every colour comes from the theme's CSS variables so it follows light/dark/high contrast.
 */

import { budgetSeverity, compactTokens, costText, formatCount, hostName } from './format';
import type { BudgetState, LedgerFileRow, LedgerHostRow, LedgerOverheadRow, LedgerReport, LedgerReread, LedgerRow } from './protocol';

export interface RenderOptions {
  /** `webview.cspSource`, allowed for styles besides the nonce. */
  cspSource: string;
  /** Random per render; only elements carrying it may run or style. */
  nonce: string;
  /** What the report covers, e.g. "task 7f3a…" or "all tasks". */
  scope: string;
  /** How many files to list under "Top files". */
  topFiles?: number;
}

export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/**
 * Reads the server's report defensively: a missing or mistyped field becomes an empty or
 * zero value instead of a blank webview, and rows are ordered by tokens, largest first.
 */
export function normalizeLedgerReport(raw: unknown): LedgerReport {
  const data = isObject(raw) ? raw : {};
  const rows: LedgerRow[] = asArray(data.rows).map((row) => {
    const r = isObject(row) ? row : {};
    return {
      key: String(r.key ?? 'other'),
      calls: num(r.calls),
      inputTokens: num(r.inputTokens),
      outputTokens: num(r.outputTokens),
      share: num(r.share),
      costUsd: r.costUsd === undefined ? undefined : num(r.costUsd),
      unpricedCalls: num(r.unpricedCalls),
    };
  });
  rows.sort((a, b) => b.inputTokens + b.outputTokens - (a.inputTokens + a.outputTokens));
  const byFile: LedgerFileRow[] = asArray(data.byFile)
    .map((row) => {
      const r = isObject(row) ? row : {};
      return { path: String(r.path ?? ''), tokens: num(r.tokens) };
    })
    .filter((row) => row.path !== '')
    .sort((a, b) => b.tokens - a.tokens);
  const total = isObject(data.total) ? data.total : {};
  const totals = {
    calls: num(total.calls ?? sum(rows, (r) => r.calls)),
    inputTokens: num(total.inputTokens ?? sum(rows, (r) => r.inputTokens)),
    outputTokens: num(total.outputTokens ?? sum(rows, (r) => r.outputTokens)),
    costUsd: total.costUsd === undefined ? undefined : num(total.costUsd),
    unpricedCalls: num(total.unpricedCalls),
  };
  const overhead: LedgerOverheadRow[] = asArray(data.overhead).map((row) => {
    const r = isObject(row) ? row : {};
    return { bucket: String(r.bucket ?? ''), label: String(r.label ?? r.bucket ?? ''), tokens: num(r.tokens) };
  });
  const rereadSection = isObject(data.rereads) ? data.rereads : {};
  const rereads: LedgerReread[] = asArray(rereadSection.files)
    .map((entry) => {
      const r = isObject(entry) ? entry : {};
      const s = isObject(r.suggestion) ? r.suggestion : null;
      return {
        path: String(r.path ?? ''),
        reads: num(r.reads),
        tasks: num(r.tasks),
        tokens: num(r.tokens),
        text: String(r.text ?? ''),
        suggestion: s ? { query: String(s.query ?? ''), tokens: num(s.tokens), lines: num(s.lines) } : null,
      };
    })
    .filter((entry) => entry.path !== '');
  const warnings = asArray(data.warnings)
    .map((w) => (isObject(w) ? String(w.text ?? '') : ''))
    .filter((text) => text !== '');
  return {
    rows,
    byFile,
    overhead,
    rereads,
    rereadScope: String(rereadSection.scope ?? 'task'),
    warnings,
    total: totals,
    budget: normalizeBudget(data.budget),
    hosts: normalizeHosts(data.hosts),
    errors: isObject(data.errors) ? String(data.errors.text ?? '') : '',
  };
}

export function normalizeHosts(raw: unknown): LedgerHostRow[] {
  return asArray(raw)
    .map((row) => {
      const r = isObject(row) ? row : {};
      return {
        host: String(r.host ?? ''),
        calls: num(r.calls),
        tokens: num(r.tokens),
        costUsd: num(r.costUsd),
        unpricedCalls: num(r.unpricedCalls),
      };
    })
    .filter((row) => row.host !== '');
}

/**
 * The ledger answers `{task, daily}` (each `{used, limit, ratio, taskId | day}` or null);
 * the status bar shows the task budget, or today's when the task has none.
 */
function normalizeBudget(raw: unknown): BudgetState | null {
  if (!isObject(raw)) {
    return null;
  }
  if ('task' in raw || 'daily' in raw) {
    const task = isObject(raw.task) ? budgetOf(raw.task, 'task') : null;
    return task ?? (isObject(raw.daily) ? budgetOf(raw.daily, 'daily') : null);
  }
  return budgetOf(raw, 'task');
}

function budgetOf(raw: Record<string, unknown>, scope: 'task' | 'daily'): BudgetState {
  const limit = raw.limit === null || raw.limit === undefined ? null : num(raw.limit);
  const used = num(raw.used);
  const ratio = raw.ratio === null || raw.ratio === undefined ? (limit ? used / limit : null) : num(raw.ratio);
  const taskId = raw.taskId === undefined || raw.taskId === null ? null : String(raw.taskId);
  return { taskId, used, limit, ratio, scope };
}

export function renderLedgerHtml(report: LedgerReport, options: RenderOptions): string {
  const { cspSource, nonce } = options;
  const csp = [
    "default-src 'none'",
    `style-src ${cspSource} 'nonce-${nonce}'`,
    `script-src 'nonce-${nonce}'`,
    "img-src 'none'",
    "font-src 'none'",
    "connect-src 'none'",
  ].join('; ');
  const body =
    report.rows.length === 0
      ? `<p class="empty" id="empty">No model calls recorded yet for ${escapeHtml(options.scope)}.</p>`
      : [
          renderTable(report),
          `<h2>Tokens per call type</h2>`,
          renderChart(report.rows),
          `<h2>Top files by tokens</h2>`,
          renderFiles(report.byFile.slice(0, options.topFiles ?? 10), report.overhead),
          renderRereads(report),
        ].join('\n');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>CodeKeep Ledger</title>
<style nonce="${nonce}">${STYLES}</style>
</head>
<body>
<header>
<h1>CodeKeep Ledger</h1>
<span class="scope">${escapeHtml(options.scope)}</span>
<button id="refresh" type="button">Refresh</button>
</header>
${renderBudget(report.budget)}
${renderWarnings(report.errors ? [...report.warnings, `Errors: ${report.errors} (requests without an answer, not calls)`] : report.warnings)}
${renderHosts(report.hosts)}
${body}
<script nonce="${nonce}">
const vscode = acquireVsCodeApi();
document.getElementById('refresh').addEventListener('click', () => vscode.postMessage({ type: 'refresh' }));
</script>
</body>
</html>`;
}

function renderBudget(budget: BudgetState | null): string {
  if (!budget || !budget.limit) {
    const used = budget ? `${formatCount(budget.used)} tokens used. ` : '';
    return `<section class="budget normal" id="budget"><p>${used}No budget is set for this task (CodeKeep: Set Task Budget).</p></section>`;
  }
  const ratio = budget.ratio ?? budget.used / budget.limit;
  const severity = budgetSeverity(ratio);
  const width = Math.round(Math.min(1, Math.max(0, ratio)) * 1000) / 10;
  const task = budget.scope === 'daily' ? 'Today' : budget.taskId ? `Task ${escapeHtml(budget.taskId)}` : 'Current task';
  return `<section class="budget ${severity}" id="budget" data-severity="${severity}">
<p>${task}: <strong>${formatCount(budget.used)}</strong> of ${formatCount(budget.limit)} tokens (${Math.round(ratio * 100)} %)</p>
<svg class="meter" viewBox="0 0 100 4" preserveAspectRatio="none" role="img" aria-label="${Math.round(ratio * 100)} percent of the budget used">
<rect class="meter-track" x="0" y="0" width="100" height="4"></rect>
<rect class="meter-fill ${severity}" x="0" y="0" width="${width}" height="4"></rect>
</svg>
</section>`;
}

function renderTable(report: LedgerReport): string {
  const totalTokens = report.total.inputTokens + report.total.outputTokens;
  const rows = report.rows
    .map((row) => {
      // `share` is a percentage of all tokens; computed here when the server left it out.
      const share = row.share > 0 ? row.share : totalTokens > 0 ? ((row.inputTokens + row.outputTokens) * 100) / totalTokens : 0;
      return `<tr><td>${escapeHtml(row.key)}</td><td class="num">${formatCount(row.calls)}</td><td class="num">${formatCount(row.inputTokens)}</td><td class="num">${formatCount(row.outputTokens)}</td><td class="num">${costCell(row.costUsd, row.calls, row.unpricedCalls)}</td><td class="num">${share.toFixed(1)} %</td></tr>`;
    })
    .join('\n');
  const total = report.total;
  return `<table id="by-type">
<thead><tr><th>Call type</th><th class="num">Calls</th><th class="num">Input tokens</th><th class="num">Output tokens</th><th class="num">Cost</th><th class="num">Share</th></tr></thead>
<tbody>
${rows}
</tbody>
<tfoot><tr><th>Total</th><th class="num">${formatCount(total.calls)}</th><th class="num">${formatCount(total.inputTokens)}</th><th class="num">${formatCount(total.outputTokens)}</th><th class="num">${costCell(total.costUsd, total.calls, total.unpricedCalls)}</th><th class="num">100 %</th></tr></tfoot>
</table>`;
}

function costCell(cost: number | undefined, calls: number, unpriced: number): string {
  if (cost === undefined && !unpriced) {
    return '';
  }
  const text = escapeHtml(costText(cost ?? 0, calls, unpriced));
  return unpriced ? `<span class="unpriced" title="${formatCount(unpriced)} calls of a model the price table does not know">${text}</span>` : text;
}

/** Calls per agent host (Claude Code, Codex, CodeKeep's own), today across all tasks. */
function renderHosts(hosts: LedgerHostRow[]): string {
  if (hosts.length === 0 || (hosts.length === 1 && hosts[0].host === 'codekeep')) {
    return '';
  }
  const rows = hosts
    .map(
      (row) =>
        `<tr data-host="${escapeHtml(row.host)}"><td>${escapeHtml(hostName(row.host))}</td><td class="num">${formatCount(row.calls)}</td><td class="num">${formatCount(row.tokens)}</td><td class="num">${costCell(row.costUsd, row.calls, row.unpricedCalls)}</td></tr>`,
    )
    .join('\n');
  return `<h2>Today by agent host</h2>
<table id="by-host">
<thead><tr><th>Host</th><th class="num">Calls</th><th class="num">Tokens</th><th class="num">Cost</th></tr></thead>
<tbody>
${rows}
</tbody>
</table>`;
}

const BAR_HEIGHT = 18;
const BAR_GAP = 8;
const LABEL_WIDTH = 150;
const CHART_WIDTH = 600;

/** Horizontal bars, input and output stacked, scaled to the largest call type. */
function renderChart(rows: LedgerRow[]): string {
  const max = Math.max(1, ...rows.map((r) => r.inputTokens + r.outputTokens));
  const plot = CHART_WIDTH - LABEL_WIDTH - 60;
  const height = rows.length * (BAR_HEIGHT + BAR_GAP) + BAR_GAP;
  const bars = rows
    .map((row, i) => {
      const y = BAR_GAP + i * (BAR_HEIGHT + BAR_GAP);
      const inputWidth = (row.inputTokens / max) * plot;
      const outputWidth = (row.outputTokens / max) * plot;
      const label = escapeHtml(row.key);
      return `<g class="bar-row">
<text class="label" x="${LABEL_WIDTH - 8}" y="${y + BAR_HEIGHT / 2}" text-anchor="end" dominant-baseline="middle">${label}</text>
<rect class="bar input" x="${LABEL_WIDTH}" y="${y}" width="${inputWidth.toFixed(1)}" height="${BAR_HEIGHT}"><title>${label}: ${formatCount(row.inputTokens)} input tokens</title></rect>
<rect class="bar output" x="${(LABEL_WIDTH + inputWidth).toFixed(1)}" y="${y}" width="${outputWidth.toFixed(1)}" height="${BAR_HEIGHT}"><title>${label}: ${formatCount(row.outputTokens)} output tokens</title></rect>
<text class="value" x="${(LABEL_WIDTH + inputWidth + outputWidth + 6).toFixed(1)}" y="${y + BAR_HEIGHT / 2}" dominant-baseline="middle">${compactTokens(row.inputTokens + row.outputTokens)}</text>
</g>`;
    })
    .join('\n');
  return `<svg id="chart" class="chart" viewBox="0 0 ${CHART_WIDTH} ${height}" role="img" aria-label="Tokens per call type">
${bars}
</svg>
<p class="legend"><span class="swatch input"></span> input <span class="swatch output"></span> output</p>`;
}

/** Files first, then the overhead buckets (in parentheses): together they are the input. */
function renderFiles(files: LedgerFileRow[], overhead: LedgerOverheadRow[]): string {
  if (files.length === 0 && overhead.length === 0) {
    return '<p class="empty">No input was attributed to files.</p>';
  }
  const rows = files
    .map((file) => `<tr><td class="path">${escapeHtml(file.path)}</td><td class="num">${formatCount(file.tokens)}</td></tr>`)
    .concat(
      overhead.map(
        (row) =>
          `<tr class="overhead" data-bucket="${escapeHtml(row.bucket)}"><td>(${escapeHtml(row.label)})</td><td class="num">${formatCount(row.tokens)}</td></tr>`,
      ),
    )
    .join('\n');
  return `<table id="by-file">
<thead><tr><th>File</th><th class="num">Input tokens</th></tr></thead>
<tbody>
${rows}
</tbody>
</table>`;
}

/** `code` spans of the server's one-line texts become <code>, everything else is escaped. */
function inlineCode(text: string): string {
  return escapeHtml(text).replace(/`([^`]+)`/g, '<code>$1</code>');
}

function renderRereads(report: LedgerReport): string {
  if (report.rereads.length === 0) {
    return '';
  }
  const where = report.rereadScope === 'recent' ? 'across the last tasks' : 'in this task';
  const items = report.rereads.map((entry) => `<li>${inlineCode(entry.text)}</li>`).join('\n');
  return `<h2>Files read more than once ${where}</h2>
<ul id="rereads">
${items}
</ul>`;
}

function renderWarnings(warnings: string[]): string {
  if (warnings.length === 0) {
    return '';
  }
  return `<section class="budget warning" id="warnings">${warnings.map((w) => `<p>${inlineCode(w)}</p>`).join('')}</section>`;
}

const STYLES = `
body { font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); color: var(--vscode-foreground); background: var(--vscode-editor-background); padding: 0 20px 20px; }
header { display: flex; align-items: baseline; gap: 12px; }
h1 { font-size: 1.5em; font-weight: 600; }
h2 { font-size: 1.1em; font-weight: 600; margin-top: 1.6em; }
.scope { color: var(--vscode-descriptionForeground); }
button { margin-left: auto; color: var(--vscode-button-foreground); background: var(--vscode-button-background); border: none; padding: 4px 12px; cursor: pointer; }
button:hover { background: var(--vscode-button-hoverBackground); }
table { border-collapse: collapse; min-width: 420px; }
th, td { text-align: left; padding: 4px 12px 4px 0; border-bottom: 1px solid var(--vscode-editorWidget-border, var(--vscode-panel-border)); }
thead th { color: var(--vscode-descriptionForeground); font-weight: 600; }
tfoot th { border-bottom: none; }
.num { text-align: right; font-variant-numeric: tabular-nums; }
.path { font-family: var(--vscode-editor-font-family); }
.empty { color: var(--vscode-descriptionForeground); }
.budget { border-left: 4px solid var(--vscode-charts-green); padding: 4px 12px; margin: 12px 0; background: var(--vscode-textBlockQuote-background); }
.budget.warning { border-left-color: var(--vscode-charts-yellow); }
.budget.error { border-left-color: var(--vscode-charts-red); }
.meter { width: 100%; max-width: 420px; height: 8px; display: block; margin-bottom: 8px; }
.meter-track { fill: var(--vscode-editorWidget-border, var(--vscode-panel-border)); }
.meter-fill { fill: var(--vscode-charts-green); }
.meter-fill.warning { fill: var(--vscode-charts-yellow); }
.meter-fill.error { fill: var(--vscode-charts-red); }
.chart { width: 100%; max-width: ${CHART_WIDTH}px; height: auto; display: block; }
.chart text { fill: var(--vscode-foreground); font-size: 12px; }
.chart .value { fill: var(--vscode-descriptionForeground); }
.bar.input, .swatch.input { fill: var(--vscode-charts-blue); background: var(--vscode-charts-blue); }
.bar.output, .swatch.output { fill: var(--vscode-charts-orange); background: var(--vscode-charts-orange); }
.legend { color: var(--vscode-descriptionForeground); }
.unpriced { color: var(--vscode-editorWarning-foreground); }
.swatch { display: inline-block; width: 10px; height: 10px; margin-left: 8px; }
`;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function num(value: unknown): number {
  const n = typeof value === 'number' ? value : Number(value);
  return Number.isFinite(n) ? n : 0;
}

function sum<T>(items: T[], pick: (item: T) => number): number {
  return items.reduce((acc, item) => acc + pick(item), 0);
}
