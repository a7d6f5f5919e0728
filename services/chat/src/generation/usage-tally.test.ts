import { describe, expect, it } from 'vitest';
import { addUsage, estimateUsage, UsageTally } from './usage-tally.js';

const estimate = () => ({ prompt_tokens: 100, completion_tokens: 5, total_tokens: 105, estimated: true });

describe('UsageTally', () => {
  it('counts the last usage a call reported (running usage repeats the total so far)', () => {
    const t = new UsageTally();
    t.report({ prompt_tokens: 10, completion_tokens: 1, total_tokens: 11 });
    t.report({ prompt_tokens: 10, completion_tokens: 7, total_tokens: 17 });
    expect(t.total()).toEqual({ prompt_tokens: 10, completion_tokens: 7, total_tokens: 17, estimated: false });
    t.endCall(estimate);
    expect(t.total().total_tokens).toBe(17);
    expect(t.reported).toBe(true);
  });

  it('sums every call of an answer (tool rounds), estimating a call that reported none', () => {
    const t = new UsageTally();
    t.report({ prompt_tokens: 300, completion_tokens: 20, total_tokens: 320 });
    t.endCall(estimate);
    t.report({ prompt_tokens: 450, completion_tokens: 80, total_tokens: 530 });
    t.endCall(estimate);
    expect(t.total()).toEqual({ prompt_tokens: 750, completion_tokens: 100, total_tokens: 850, estimated: false });
    t.endCall(estimate);
    expect(t.total()).toEqual({ prompt_tokens: 850, completion_tokens: 105, total_tokens: 955, estimated: true });
  });

  it('is the estimate alone when no call reported usage', () => {
    const t = new UsageTally();
    t.endCall(estimate);
    expect(t.total()).toEqual(estimate());
    expect(t.reported).toBe(false);
  });

  it('keeps an estimate the model itself marked (the offline responder)', () => {
    const t = new UsageTally();
    t.report({ prompt_tokens: 3, completion_tokens: 2, total_tokens: 5, estimated: true });
    expect(t.total().estimated).toBe(true);
  });
});

describe('estimateUsage and addUsage', () => {
  it('estimates four characters a token, rounded up', () => {
    expect(estimateUsage({ messages: [{ role: 'user', content: 'abcde' }] }, 'abc')).toEqual({ prompt_tokens: 2, completion_tokens: 1, total_tokens: 3, estimated: true });
  });
  it('adds field by field; estimated when either part is', () => {
    expect(addUsage({ prompt_tokens: 1, completion_tokens: 2, total_tokens: 3, estimated: false }, { prompt_tokens: 4, completion_tokens: 5, total_tokens: 9, estimated: true })).toEqual({
      prompt_tokens: 5,
      completion_tokens: 7,
      total_tokens: 12,
      estimated: true,
    });
  });
});
