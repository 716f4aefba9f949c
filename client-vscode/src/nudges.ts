/**
 * How agent nudges and budget crossings are presented. Pure: which ones are warnings,
 * the line written to the Agent channel, and when a budget update deserves a popup.
 */

import { budgetSeverity, formatCount, type BudgetSeverity } from './format';
import type { BudgetParams, NudgeParams } from './protocol';

export type NudgeDisplay = 'notification' | 'statusBar' | 'off';

/** Nudges that ask the user to act now (stop, or mind the spend) are warnings. */
const WARNING_TYPES = new Set(['force_exit', 'budget_warning']);

export function isWarningNudge(type: string): boolean {
  return WARNING_TYPES.has(type);
}

export function nudgeDisplay(value: unknown): NudgeDisplay {
  return value === 'statusBar' || value === 'off' ? value : 'notification';
}

/** `"[14:02:11] [convergence] task 7f3a: You have read 9 files …"` */
export function nudgeLogLine(nudge: NudgeParams, at: Date): string {
  const time = at.toTimeString().slice(0, 8);
  const task = nudge.taskId ? ` task ${nudge.taskId}:` : '';
  return `[${time}] [${nudge.type}]${task} ${nudge.text}`;
}

export function nudgeMessage(nudge: NudgeParams): string {
  return `CodeKeep agent (${nudge.type.replace(/_/g, ' ')}): ${nudge.text}`;
}

/**
 * The message to pop up when a budget update moves a task to a worse severity
 * (normal -> warning -> error); undefined when nothing new happened, so a stream of
 * updates does not become a stream of popups.
 */
export function budgetAlert(previous: BudgetSeverity, update: BudgetParams): string | undefined {
  const now = budgetSeverity(update.ratio);
  if (rank(now) <= rank(previous)) {
    return undefined;
  }
  const team = update.scope === 'team'; // the whole team's spend today
  const task = team ? 'the team' : update.taskId ? `task ${update.taskId}` : 'the current task';
  const percent = Math.round(update.ratio * 100);
  const verb = now === 'error' ? 'is over its' : 'has used';
  const budget = team ? 'daily token budget' : 'token budget';
  const tail = now === 'error' ? budget : `of its ${budget}`;
  return now === 'error'
    ? `CodeKeep: ${task} ${verb} ${tail}: ${formatCount(update.used)} of ${formatCount(update.limit)} tokens (${percent} %).`
    : `CodeKeep: ${task} ${verb} ${percent} % ${tail} (${formatCount(update.used)} of ${formatCount(update.limit)} tokens).`;
}

function rank(severity: BudgetSeverity): number {
  return severity === 'error' ? 2 : severity === 'warning' ? 1 : 0;
}

/** How long after a budget notification the server's matching warning may arrive. */
const ECHO_WINDOW_MS = 5000;

/**
 * True when a server warning restates the budget update just received (it names the same
 * used and limit counts), so the extension's own presentation already covers it.
 */
export function isBudgetEcho(message: string, update: BudgetParams, elapsedMs: number): boolean {
  return (
    elapsedMs >= 0 &&
    elapsedMs <= ECHO_WINDOW_MS &&
    message.includes(formatCount(update.used)) &&
    message.includes(formatCount(update.limit))
  );
}
