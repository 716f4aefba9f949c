import { describe, expect, it } from 'vitest';
import { escapeHtml, normalizeLedgerReport, renderLedgerHtml } from '../../src/ledgerHtml';

const options = { cspSource: 'vscode-webview://abc', nonce: 'N0nce', scope: 'task t1' };

const serverReport = {
  rows: [
    { key: 'plan', calls: 2, inputTokens: 1000, outputTokens: 200, share: 10.9 },
    { key: 'read_code.file', calls: 5, inputTokens: 9000, outputTokens: 800, share: 89.1 },
  ],
  byFile: [
    { path: 'src/small.py', tokens: 100 },
    { path: 'src/<big>.py', tokens: 8000 },
  ],
  overhead: [{ bucket: 'system', label: 'system prompt', calls: 7, tokens: 1500, costUsd: 0, share: 15 }],
  rereads: {
    scope: 'task',
    lastTasks: 5,
    files: [
      {
        path: 'src/<big>.py',
        reads: 4,
        tasks: 1,
        tokens: 8000,
        text: '`src/<big>.py` read 4× (8k tokens) — `find_symbol Session.send` is 1.2k',
        suggestion: { tool: 'find_symbol', query: 'Session.send', path: 'src/<big>.py', lines: 12, tokens: 1200 },
      },
    ],
  },
  warnings: [{ kind: 'summaries', taskId: 't1', share: 23.4, text: 'summaries are 23.4% of task t1' }],
  total: { calls: 7, inputTokens: 10000, outputTokens: 1000 },
  budget: { task: { taskId: 't1', used: 11000, limit: 12000, ratio: 0.9167, hardStop: false }, daily: null },
};

describe('ledger report insight', () => {
  it('reads overhead, re-reads and warnings', () => {
    const report = normalizeLedgerReport(serverReport);
    expect(report.overhead).toEqual([{ bucket: 'system', label: 'system prompt', tokens: 1500 }]);
    expect(report.rereads[0]).toMatchObject({ path: 'src/<big>.py', reads: 4, suggestion: { query: 'Session.send', tokens: 1200, lines: 12 } });
    expect(report.rereadScope).toBe('task');
    expect(report.warnings).toEqual(['summaries are 23.4% of task t1']);
  });

  it('shows them escaped, with code spans', () => {
    const html = renderLedgerHtml(normalizeLedgerReport(serverReport), options);
    expect(html).toContain('<tr class="overhead" data-bucket="system"><td>(system prompt)</td><td class="num">1,500</td></tr>');
    expect(html).toContain('<h2>Files read more than once in this task</h2>');
    expect(html).toContain('<li><code>src/&lt;big&gt;.py</code> read 4× (8k tokens) — <code>find_symbol Session.send</code> is 1.2k</li>');
    expect(html).toContain('<section class="budget warning" id="warnings"><p>summaries are 23.4% of task t1</p></section>');
  });

  it('leaves the sections out when there is nothing to say', () => {
    const html = renderLedgerHtml(normalizeLedgerReport({ rows: serverReport.rows }), options);
    expect(html).not.toContain('id="rereads"');
    expect(html).not.toContain('id="warnings"');
  });
});

describe('ledger report normalisation', () => {
  it('orders call types and files by tokens, largest first', () => {
    const report = normalizeLedgerReport(serverReport);
    expect(report.rows.map((r) => r.key)).toEqual(['read_code.file', 'plan']);
    expect(report.byFile.map((f) => f.path)).toEqual(['src/<big>.py', 'src/small.py']);
    expect(report.budget).toEqual({ taskId: 't1', used: 11000, limit: 12000, ratio: 0.9167, scope: 'task' });
  });

  it('fills totals from the rows when the server sends none', () => {
    const report = normalizeLedgerReport({ rows: [{ key: 'tool', calls: 3, inputTokens: 30, outputTokens: 3 }] });
    expect(report.rows[0]).toMatchObject({ key: 'tool', calls: 3, inputTokens: 30, outputTokens: 3 });
    expect(report.total).toMatchObject({ calls: 3, inputTokens: 30, outputTokens: 3 });
    expect(report.budget).toBeNull();
  });

  it('turns garbage into an empty report instead of throwing', () => {
    for (const bad of [null, 42, 'x', [], { rows: 'no', byFile: {}, total: 7, budget: 'b' }]) {
      const report = normalizeLedgerReport(bad);
      expect(report.rows).toEqual([]);
      expect(report.byFile).toEqual([]);
      expect(report.total.calls).toBe(0);
    }
  });

  it("falls back to today's budget when the task has none", () => {
    const report = normalizeLedgerReport({ budget: { task: null, daily: { day: '2026-11-29', used: 10, limit: 40, ratio: 0.25 } } });
    expect(report.budget).toEqual({ taskId: null, used: 10, limit: 40, ratio: 0.25, scope: 'daily' });
    expect(normalizeLedgerReport({ budget: { task: null, daily: null } }).budget).toBeNull();
  });

  it('computes shares as percentages when the server leaves them out', () => {
    const html = renderLedgerHtml(normalizeLedgerReport({ rows: [{ key: 'a', calls: 1, inputTokens: 30, outputTokens: 0 }, { key: 'b', calls: 1, inputTokens: 10, outputTokens: 0 }] }), options);
    expect(html).toContain('<td>a</td><td class="num">1</td><td class="num">30</td><td class="num">0</td><td class="num"></td><td class="num">75.0 %</td>');
  });

  it('computes a missing budget ratio from used and limit', () => {
    expect(normalizeLedgerReport({ budget: { used: 50, limit: 200 } }).budget?.ratio).toBe(0.25);
    expect(normalizeLedgerReport({ budget: { used: 50, limit: null } }).budget?.ratio).toBeNull();
  });
});

describe('ledger webview HTML', () => {
  const html = renderLedgerHtml(normalizeLedgerReport(serverReport), options);

  it('locks the page down: a CSP with the nonce, no network sources', () => {
    expect(html).toContain(`script-src 'nonce-N0nce'`);
    expect(html).toContain(`style-src vscode-webview://abc 'nonce-N0nce'`);
    expect(html).toContain(`default-src 'none'`);
    expect(html).toContain('<style nonce="N0nce">');
    expect(html).toContain('<script nonce="N0nce">');
    expect(html).not.toMatch(/https?:\/\//);
    expect(html).not.toMatch(/ style="/);
  });

  it('has the table by call type with counts, tokens, shares and totals', () => {
    expect(html).toContain('<table id="by-type">');
    expect(html).toContain('<td>read_code.file</td><td class="num">5</td><td class="num">9,000</td><td class="num">800</td><td class="num"></td><td class="num">89.1 %</td>');
    expect(html).toContain('<tfoot><tr><th>Total</th><th class="num">7</th><th class="num">10,000</th><th class="num">1,000</th>');
  });

  it('draws one stacked bar per call type, scaled to the largest', () => {
    const inputBars = [...html.matchAll(/<rect class="bar input" x="150" y="\d+" width="([\d.]+)"/g)].map((m) => Number(m[1]));
    expect(inputBars).toHaveLength(2);
    // read_code.file (9,800 tokens) is the longest bar: input 9,000 of a 390 px plot.
    expect(inputBars[0]).toBeCloseTo((9000 / 9800) * 390, 1);
    expect(inputBars[1]).toBeCloseTo((1000 / 9800) * 390, 1);
  });

  it('lists top files escaped and shows the budget in the warning state at 92 %', () => {
    expect(html).toContain('<td class="path">src/&lt;big&gt;.py</td><td class="num">8,000</td>');
    expect(html).toContain('data-severity="warning"');
    expect(html).toContain('Task t1: <strong>11,000</strong> of 12,000 tokens (92 %)');
  });

  it('uses theme colours only', () => {
    expect(html).toContain('var(--vscode-charts-blue)');
    expect(html).not.toMatch(/#[0-9a-fA-F]{3,6}\b/);
  });

  it('says so when nothing was recorded, and when no budget is set', () => {
    const empty = renderLedgerHtml(normalizeLedgerReport({ rows: [], budget: { used: 0, limit: null } }), options);
    expect(empty).toContain('No model calls recorded yet for task t1.');
    expect(empty).not.toContain('id="by-type"');
    expect(empty).toContain('No budget is set');
  });

  it('escapes every HTML-significant character', () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
  });
});

describe('external sessions, unpriced models and failed requests', () => {
  const withHosts = {
    ...serverReport,
    rows: [{ key: 'read_code.file', calls: 3, inputTokens: 9000, outputTokens: 800, share: 100, costUsd: 0.0468, unpricedCalls: 1 }],
    total: { calls: 3, inputTokens: 9000, outputTokens: 800, costUsd: 0.0468, unpricedCalls: 1 },
    hosts: [
      { host: 'claude-code', calls: 2, tokens: 9800, costUsd: 0.0468, unpricedCalls: 1 },
      { host: 'codekeep', calls: 1, tokens: 100, costUsd: 0, unpricedCalls: 1 },
    ],
    errors: { total: 3, byKind: { connection: 3 }, text: '3 failed connections' },
  };

  it('reads hosts, unpriced calls and the errors line', () => {
    const report = normalizeLedgerReport(withHosts);
    expect(report.hosts.map((row) => row.host)).toEqual(['claude-code', 'codekeep']);
    expect(report.total.unpricedCalls).toBe(1);
    expect(report.errors).toBe('3 failed connections');
  });

  it('shows each host, never a silent $0 for an unpriced model, and the failed connections', () => {
    const html = renderLedgerHtml(normalizeLedgerReport(withHosts), options);
    expect(html).toContain('<table id="by-host">');
    expect(html).toMatch(/data-host="claude-code"><td>Claude Code<\/td><td class="num">2<\/td>/);
    expect(html).toContain('&gt;=$0.0468');
    expect(html).toMatch(/data-host="codekeep">.*unpriced/);
    expect(html).not.toContain('$0.0000');
    expect(html).toContain('Errors: 3 failed connections (requests without an answer, not calls)');
  });

  it('leaves the host table out when only CodeKeep recorded calls', () => {
    const html = renderLedgerHtml(normalizeLedgerReport({ ...serverReport, hosts: [{ host: 'codekeep', calls: 7, tokens: 1, costUsd: 0.1, unpricedCalls: 0 }] }), options);
    expect(html).not.toContain('by-host');
  });
});
