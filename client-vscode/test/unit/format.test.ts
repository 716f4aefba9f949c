import { describe, expect, it } from 'vitest';
import {
  budgetBackgroundColor,
  budgetSeverity,
  budgetText,
  costText,
  externalHostsText,
  budgetTooltip,
  compactTokens,
  indexStatusText,
  indexingText,
  parseTokenAmount,
} from '../../src/format';
import type { IndexStatus } from '../../src/protocol';

describe('budget text', () => {
  it('shows used and limit compactly, as in the status bar', () => {
    expect(budgetText(38_000, 150_000)).toBe('$(pulse) 38k / 150k tokens');
    expect(budgetText(38_400, 150_000)).toBe('$(pulse) 38k / 150k tokens');
    expect(budgetText(1_500, 2_000)).toBe('$(pulse) 1.5k / 2k tokens');
    expect(budgetText(950, 1_000)).toBe('$(pulse) 950 / 1k tokens');
    expect(budgetText(1_234_567, 2_000_000)).toBe('$(pulse) 1.2M / 2M tokens');
  });

  it('shows only the amount when there is no budget', () => {
    expect(budgetText(12_000, null)).toBe('$(pulse) 12k tokens');
    expect(budgetText(12_000, 0)).toBe('$(pulse) 12k tokens');
  });

  it('rounds compact amounts at unit boundaries without showing 1000k', () => {
    expect(compactTokens(999)).toBe('999');
    expect(compactTokens(1000)).toBe('1k');
    expect(compactTokens(9_950)).toBe('10k');
    expect(compactTokens(999_499)).toBe('999k');
    expect(compactTokens(999_600)).toBe('1M');
  });

  it('says the exact numbers and percentage in the tooltip', () => {
    expect(budgetTooltip(112_500, 150_000, 't1')).toBe('Task t1: 112,500 of 150,000 tokens (75 %). Click for the ledger report.');
    expect(budgetTooltip(10, null, null)).toContain('no budget set');
  });
});

describe('budget colours', () => {
  it('is normal below 75 %, warning from 75 %, error from 100 %', () => {
    expect(budgetSeverity(0.5)).toBe('normal');
    expect(budgetSeverity(0.7499)).toBe('normal');
    expect(budgetSeverity(0.75)).toBe('warning');
    expect(budgetSeverity(0.99)).toBe('warning');
    expect(budgetSeverity(1)).toBe('error');
    expect(budgetSeverity(3.2)).toBe('error');
  });

  it('treats a missing or nonsensical ratio as normal', () => {
    expect(budgetSeverity(null)).toBe('normal');
    expect(budgetSeverity(undefined)).toBe('normal');
    expect(budgetSeverity(Number.NaN)).toBe('normal');
  });

  it('maps severities to the status bar theme colours VS Code defines', () => {
    expect(budgetBackgroundColor('normal')).toBeUndefined();
    expect(budgetBackgroundColor('warning')).toBe('statusBarItem.warningBackground');
    expect(budgetBackgroundColor('error')).toBe('statusBarItem.errorBackground');
  });
});

describe('index status text', () => {
  const status = (over: Partial<IndexStatus>): IndexStatus => ({
    files: 10,
    symbols: 12_345,
    references: 40_000,
    languages: { python: 10 },
    pending: 0,
    ready: true,
    ...over,
  });

  it('shows the symbol count with separators once ready', () => {
    expect(indexStatusText(status({}))).toBe('$(symbol-class) CodeKeep: 12,345 symbols');
    expect(indexStatusText(status({ symbols: 1 }))).toBe('$(symbol-class) CodeKeep: 1 symbol');
  });

  it('shows a percentage while indexing, from the background counters when given', () => {
    expect(indexStatusText(status({ ready: false, indexed: 43, toIndex: 100 }))).toBe('$(sync~spin) CodeKeep: indexing 43 %');
    expect(indexStatusText(status({ ready: false, files: 30, pending: 70 }))).toBe('$(sync~spin) CodeKeep: indexing 30 %');
    expect(indexStatusText(status({ ready: false, files: 0, pending: 0 }))).toBe('$(sync~spin) CodeKeep: indexing');
  });

  it('clamps progress percentages into 0..100', () => {
    expect(indexingText(143)).toBe('$(sync~spin) CodeKeep: indexing 100 %');
    expect(indexingText(-3)).toBe('$(sync~spin) CodeKeep: indexing 0 %');
  });
});

describe('token amounts typed by a user', () => {
  it('accepts plain, separated and suffixed numbers', () => {
    expect(parseTokenAmount('150000')).toBe(150_000);
    expect(parseTokenAmount('150,000')).toBe(150_000);
    expect(parseTokenAmount(' 150k ')).toBe(150_000);
    expect(parseTokenAmount('1.5M')).toBe(1_500_000);
    expect(parseTokenAmount('2,5k')).toBe(2_500);
  });

  it('rejects what is not a positive amount', () => {
    for (const bad of ['', 'abc', '-5', '0', '12 tokens', '1.5x', 'k']) {
      expect(parseTokenAmount(bad), bad).toBeUndefined();
    }
  });
});

describe('agent hosts in the status bar', () => {
  it('names the other hosts with their cost, and says when a cost is missing', () => {
    expect(
      externalHostsText([
        { host: 'claude-code', calls: 2, costUsd: 0.04644, unpricedCalls: 0 },
        { host: 'codex', calls: 1, costUsd: 0, unpricedCalls: 1 },
        { host: 'codekeep', calls: 9, costUsd: 1, unpricedCalls: 0 },
      ]),
    ).toBe('Claude Code $0.0464 · Codex unpriced');
    expect(externalHostsText([{ host: 'codekeep', calls: 9, costUsd: 1, unpricedCalls: 0 }])).toBe('');
    expect(costText(0.5, 3, 1)).toBe('>=$0.5000');
  });
});
