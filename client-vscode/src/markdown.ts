/** Markdown for the generated previews (repo map, agent answer). Pure. */

import { formatCount } from './format';
import type { AgentRunResult, AgentToolCall, RepoMapResult } from './protocol';

/** Fences `text` so Markdown shows it verbatim, whatever backticks it contains. */
export function fenced(text: string, language = ''): string {
  const longest = Math.max(2, ...Array.from(text.matchAll(/`+/g), (m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${language}\n${text}\n${fence}`;
}

export function repoMapMarkdown(result: RepoMapResult, budget: number, folder: string): string {
  return [
    `# Repo map — ${folder}`,
    '',
    `${formatCount(result.tokens)} tokens (budget ${formatCount(budget)}). The most referenced definitions first, file by file.`,
    '',
    fenced(result.text.trimEnd() || '(the index is empty)'),
    '',
  ].join('\n');
}

export interface AgentStep {
  phase?: string;
  message: string;
}

export function agentAnswerMarkdown(task: string, result: AgentRunResult, steps: AgentStep[]): string {
  const plural = (n: number, word: string): string => `${formatCount(n)} ${word}${n === 1 ? '' : 's'}`;
  const stop = result.stopReason ? ` · stopped: ${result.stopReason.replace(/_/g, ' ')}` : '';
  const lines = [
    `# Agent task`,
    '',
    `> ${task.replace(/\n/g, '\n> ')}`,
    '',
    `Task \`${result.taskId}\` · ${plural(result.iterations, 'iteration')} · ${plural(result.toolCalls.length, 'tool call')} · ${formatCount(result.tokens)} tokens${stop}`,
    '',
    '## Answer',
    '',
  ];
  const unfinished = unfinishedText(result);
  if (unfinished) {
    lines.push(`**Not finished:** ${unfinished}`, '');
  }
  lines.push(result.answer.trim() || '_The agent returned no answer._', '');
  if (result.toolCalls.length > 0) {
    lines.push('## Tool calls', '');
    result.toolCalls.forEach((call, index) => lines.push(`${index + 1}. ${toolCallLine(call)}`));
    lines.push('');
  }
  if (steps.length > 0) {
    lines.push('## Progress', '');
    for (const step of steps) {
      lines.push(`- ${step.phase ? `**${step.phase}** ` : ''}${step.message}`);
    }
    lines.push('');
  }
  const nudges = result.nudges ?? [];
  if (nudges.length > 0) {
    lines.push('## Nudges', '');
    for (const nudge of nudges) {
      lines.push(`- _${nudge.type.replace(/_/g, ' ')}_: ${nudge.text.replace(/\s+/g, ' ')}`);
    }
    lines.push('');
  }
  return lines.join('\n');
}

/** Why a run's answer is not a complete one, for the panel and a warning; undefined when it is. */
export function unfinishedText(result: AgentRunResult): string | undefined {
  if (result.finished !== false) {
    return undefined;
  }
  switch (result.stopReason) {
    case 'cut_off':
      return "the model's reply was cut off at its output limit; the tool calls in a cut-off reply were not run.";
    case 'no_answer':
      return 'the model gave no answer.';
    case 'refused':
      return 'the model refused the task.';
    default:
      return `the task stopped without a complete answer (${(result.stopReason ?? 'unknown').replace(/_/g, ' ')}).`;
  }
}

const FILES_SHOWN = 3;

/** "`find_symbol` — ok · 12 ms · `pkg/billing.py`": one tool call of the answer panel. */
export function toolCallLine(call: AgentToolCall): string {
  const outcome = call.outcome === 'ok' ? 'ok' : `**${call.outcome}**`; // the ones to look at
  const parts = [`\`${call.name}\` — ${outcome}`, `${formatCount(Math.round(call.durationMs))} ms`];
  if (call.files.length > 0) {
    const more = call.files.length - FILES_SHOWN;
    const shown = call.files.slice(0, FILES_SHOWN).map((file) => `\`${file}\``).join(', ');
    parts.push(more > 0 ? `${shown} and ${more} more` : shown);
  }
  return parts.join(' · ');
}
