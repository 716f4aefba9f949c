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
  const lines = [
    `# Agent task`,
    '',
    `> ${task.replace(/\n/g, '\n> ')}`,
    '',
    `Task \`${result.taskId}\` · ${result.iterations} iteration${result.iterations === 1 ? '' : 's'} · ${formatCount(result.tokens)} tokens`,
    '',
    '## Answer',
    '',
    result.answer.trim() || '_The agent returned no answer._',
    '',
  ];
  const toolCalls = result.toolCalls ?? [];
  if (toolCalls.length > 0) {
    lines.push('## Tool calls', '');
    toolCalls.forEach((call, i) => {
      const status = call.ok === false ? ' — failed' : '';
      const summary = call.summary ? `: ${call.summary.replace(/\s+/g, ' ')}` : '';
      lines.push(`${i + 1}. \`${call.name}\`${status}${summary}`);
    });
    lines.push('');
  }
  if (steps.length > 0) {
    lines.push('## Progress', '');
    for (const step of steps) {
      lines.push(`- ${step.phase ? `**${step.phase}** ` : ''}${step.message}`);
    }
    lines.push('');
  }
  return lines.join('\n');
}
