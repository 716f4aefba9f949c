/** Markdown for the generated previews (repo map, agent answer). Pure. */

import { formatCount } from './format';
import type { AgentRunResult, RepoMapResult } from './protocol';

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
    `Task \`${result.taskId}\` · ${plural(result.iterations, 'iteration')} · ${plural(result.toolCalls, 'tool call')} · ${formatCount(result.tokens)} tokens${stop}`,
    '',
    '## Answer',
    '',
    result.answer.trim() || '_The agent returned no answer._',
    '',
  ];
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
