import { describe, expect, it } from 'vitest';
import { budgetAlert, isBudgetEcho, isWarningNudge, nudgeDisplay, nudgeLogLine, nudgeMessage } from '../../src/nudges';

describe('nudges', () => {
  it('treats force_exit and budget_warning as warnings, the rest as information', () => {
    expect(isWarningNudge('force_exit')).toBe(true);
    expect(isWarningNudge('budget_warning')).toBe(true);
    for (const type of ['convergence', 'reflection', 'planning']) {
      expect(isWarningNudge(type)).toBe(false);
    }
  });

  it('writes a timestamped line with the type to the Agent channel', () => {
    const at = new Date(2026, 0, 2, 14, 2, 11);
    expect(nudgeLogLine({ taskId: 't9', type: 'convergence', text: 'Stop exploring.' }, at)).toBe(
      '[14:02:11] [convergence] task t9: Stop exploring.',
    );
    expect(nudgeLogLine({ taskId: null, type: 'planning', text: 'Plan first.' }, at)).toBe('[14:02:11] [planning] Plan first.');
  });

  it('names the nudge type in words in the notification', () => {
    expect(nudgeMessage({ taskId: 't', type: 'force_exit', text: 'Answer now.' })).toBe('CodeKeep agent (force exit): Answer now.');
  });

  it('reads the display setting, defaulting to notifications', () => {
    expect(nudgeDisplay('statusBar')).toBe('statusBar');
    expect(nudgeDisplay('off')).toBe('off');
    expect(nudgeDisplay(undefined)).toBe('notification');
    expect(nudgeDisplay('loud')).toBe('notification');
  });
});

describe('budget alerts', () => {
  const update = (used: number, limit = 1000) => ({ taskId: 't1', used, limit, ratio: used / limit });

  it('alerts once when a task crosses 75 % and once more at 100 %', () => {
    expect(budgetAlert('normal', update(500))).toBeUndefined();
    expect(budgetAlert('normal', update(800))).toBe('CodeKeep: task t1 has used 80 % of its token budget (800 of 1,000 tokens).');
    expect(budgetAlert('warning', update(900))).toBeUndefined();
    expect(budgetAlert('warning', update(1200))).toBe('CodeKeep: task t1 is over its token budget: 1,200 of 1,000 tokens (120 %).');
    expect(budgetAlert('error', update(1500))).toBeUndefined();
  });

  it('jumps straight to the error alert when one call crosses both thresholds', () => {
    expect(budgetAlert('normal', update(1000))).toContain('is over its token budget');
  });
});

describe('server budget warnings', () => {
  const update = { taskId: 't1', used: 800, limit: 1000, ratio: 0.8 };
  const serverText = 'CodeKeep: Token budget warning: task t1 used 800 of 1,000 tokens (80%, past the 75% mark).';

  it('recognises the warning that restates the budget update just received', () => {
    expect(isBudgetEcho(serverText, update, 30)).toBe(true);
  });

  it('keeps other warnings, other numbers and late ones', () => {
    expect(isBudgetEcho('CodeKeep: the index is corrupt, rebuilding', update, 30)).toBe(false);
    expect(isBudgetEcho(serverText, { ...update, used: 900 }, 30)).toBe(false);
    expect(isBudgetEcho(serverText, update, 60_000)).toBe(false);
  });
});

describe('team budget alerts', () => {
  it("names the team's daily budget, not a task", () => {
    const team = { taskId: '', used: 900, limit: 1000, ratio: 0.9, scope: 'team' as const };
    expect(budgetAlert('normal', team)).toBe('CodeKeep: the team has used 90 % of its daily token budget (900 of 1,000 tokens).');
    expect(budgetAlert('warning', { ...team, used: 1100, ratio: 1.1 })).toBe(
      'CodeKeep: the team is over its daily token budget: 1,100 of 1,000 tokens (110 %).');
  });
});
