import { describe, expect, it } from 'vitest';
import { mergeStatuses, statusesOf } from '../../src/indexStatus';
import { agentAnswerMarkdown, fenced, repoMapMarkdown, unfinishedText } from '../../src/markdown';
import type { AgentToolCall } from '../../src/protocol';

describe('markdown previews', () => {
  it('fences text with a fence longer than any backtick run inside it', () => {
    expect(fenced('plain')).toBe('```\nplain\n```');
    expect(fenced('has ```` four')).toBe('`````\nhas ```` four\n`````');
  });

  it('shows the repo map verbatim with its token count', () => {
    const md = repoMapMarkdown({ text: 'app.py:\n  def main()\n', tokens: 812 }, 1024, 'shop');
    expect(md).toContain('# Repo map — shop');
    expect(md).toContain('812 tokens (budget 1,024)');
    expect(md).toContain('```\napp.py:\n  def main()\n```');
  });

  it('shows the answer, counts, progress steps and nudges of an agent run', () => {
    const md = agentAnswerMarkdown(
      'Explain X',
      {
        taskId: 't7',
        answer: 'X does Y.',
        iterations: 3,
        tokens: 4200,
        toolCalls: [{ name: 'find_symbol', outcome: 'ok', durationMs: 12.4, files: ['pkg/x.py'] }],
        stopReason: 'answered',
        nudges: [{ type: 'force_exit', text: 'Answer  now.' }],
      },
      [{ phase: 'EXPLORE', message: 'step 2/24' }, { message: 'answered after 3 steps' }],
    );
    expect(md).toContain('> Explain X');
    expect(md).toContain('Task `t7` · 3 iterations · 1 tool call · 4,200 tokens · stopped: answered');
    expect(md).toContain('## Answer\n\nX does Y.');
    expect(md).toContain('## Tool calls\n\n1. `find_symbol` — ok · 12 ms · `pkg/x.py`\n');
    expect(md).toContain('- **EXPLORE** step 2/24\n- answered after 3 steps');
    expect(md).toContain('- _force exit_: Answer now.');
  });

  it('says when a run stopped without a complete answer, and why', () => {
    const cut = agentAnswerMarkdown(
      'Rewrite X',
      {
        taskId: 'c',
        answer: 'Changing it [cut off: length]',
        iterations: 3,
        tokens: 900,
        finished: false,
        stopReason: 'cut_off',
        toolCalls: [{ name: 'write_file', outcome: 'cut_off', durationMs: 0, files: [] }],
      },
      [],
    );
    expect(cut).toContain("## Answer\n\n**Not finished:** the model's reply was cut off at its output limit");
    expect(cut).toContain('1. `write_file` — **cut_off** · 0 ms');
    expect(cut).toContain('stopped: cut off');
    const base = { taskId: 'e', answer: 'The model gave no answer.', iterations: 2, tokens: 10, toolCalls: [] };
    expect(unfinishedText({ ...base, finished: false, stopReason: 'no_answer' })).toBe('the model gave no answer.');
    expect(unfinishedText({ ...base, finished: false, stopReason: 'refused' })).toBe('the model refused the task.');
    expect(unfinishedText({ ...base, finished: true, stopReason: 'answered' })).toBeUndefined();
    expect(unfinishedText({ ...base, stopReason: 'answered' })).toBeUndefined(); // an older server
    expect(agentAnswerMarkdown('t', { ...base, finished: true }, [])).not.toContain('Not finished');
  });

  it('says so when the agent gave no answer', () => {
    const md = agentAnswerMarkdown('t', { taskId: 'a', answer: '  ', iterations: 1, tokens: 0, toolCalls: [] }, []);
    expect(md).toContain('_The agent returned no answer._');
    expect(md).not.toContain('## Progress');
    expect(md).not.toContain('## Tool calls');
  });

  it('lists every tool call in order, flagging the ones that did not run normally', () => {
    const toolCalls: AgentToolCall[] = [
      { name: 'read_file', outcome: 'refused', durationMs: 0.2, files: [] },
      { name: 'search_code', outcome: 'cached', durationMs: 1530, files: ['a.py', 'b.py', 'c.py', 'd.py', 'e.py'] },
      { name: 'run_command', outcome: 'error', durationMs: 3, files: [] },
    ];
    const md = agentAnswerMarkdown('Find X', { taskId: 'b', answer: 'Found.', iterations: 2, tokens: 900, toolCalls }, []);
    expect(md).toContain('3 tool calls');
    expect(md).toContain(
      [
        '1. `read_file` — **refused** · 0 ms',
        '2. `search_code` — **cached** · 1,530 ms · `a.py`, `b.py`, `c.py` and 2 more',
        '3. `run_command` — **error** · 3 ms',
      ].join('\n'),
    );
  });
});

describe('index status of several folders', () => {
  const folder = (symbols: number, ready: boolean) => ({
    files: 2, symbols, references: 1, languages: { python: 2 }, pending: ready ? 0 : 3, ready, indexed: 2, toIndex: 5,
  });

  it('uses the per-folder list when the server sends one', () => {
    expect(statusesOf({ files: 4, folders: [folder(1, true), folder(2, true)] })).toHaveLength(2);
    expect(statusesOf(folder(1, true))).toHaveLength(1);
  });

  it('sums counts and is ready only when every folder is', () => {
    const merged = mergeStatuses([folder(10, true), folder(5, false)]);
    expect(merged).toMatchObject({ files: 4, symbols: 15, pending: 3, ready: false, indexed: 4, toIndex: 10, languages: { python: 4 } });
    expect(mergeStatuses([]).ready).toBe(false);
  });
});
