import { describe, expect, it } from 'vitest';
import { OfflineChatModel } from './offline-chat.model.js';

describe('OfflineChatModel', () => {
  it('streams the offline answer in pieces that add up to it, then its estimated usage', async () => {
    const model = new OfflineChatModel(0);
    const pieces = [];
    const messages = [{ role: 'system' as const, content: 'x'.repeat(40) }, { role: 'user' as const, content: 'How is it?' }];
    for await (const c of model.stream({ model: 'x', messages, offlineAnswer: 'The assistant is offline. Worth 2800 RUB.' }, new AbortController().signal)) pieces.push(c);
    expect(pieces.length).toBeGreaterThan(3);
    expect(pieces.map((p) => p.content ?? '').join('')).toBe('The assistant is offline. Worth 2800 RUB.');
    // 50 prompt characters and 41 of answer, at four a token.
    expect(pieces.at(-1)?.usage).toEqual({ prompt_tokens: 13, completion_tokens: 11, total_tokens: 24, estimated: true });
    expect(pieces.filter((p) => p.usage)).toHaveLength(1);
  });

  it('stops when aborted', async () => {
    const ac = new AbortController();
    const pieces = [];
    for await (const c of new OfflineChatModel(1).stream({ model: 'x', messages: [], offlineAnswer: 'a b c d e f' }, ac.signal)) {
      pieces.push(c);
      if (pieces.length === 2) ac.abort();
    }
    expect(pieces).toHaveLength(2);
  });
});
