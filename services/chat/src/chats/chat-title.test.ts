import { describe, expect, it } from 'vitest';
import { titleFromMessage } from './chat-title.js';

describe('titleFromMessage', () => {
  it('keeps a short first line, collapsing white space', () => {
    expect(titleFromMessage('\n  How   diversified is\tmy portfolio?\nMore text')).toBe('How diversified is my portfolio?');
  });
  it('cuts a long line at a word end with an ellipsis, within 60 characters', () => {
    const t = titleFromMessage('Please explain in detail why my portfolio concentration score is so high compared to last month');
    expect(t.length).toBeLessThanOrEqual(60);
    expect(t.endsWith('…')).toBe(true);
    expect(t).toBe('Please explain in detail why my portfolio concentration…');
  });

  it('never cuts an emoji in half', () => {
    const title = titleFromMessage(`${'a'.repeat(58)}${'😀'.repeat(10)}`);
    expect(title).toBe(`${'a'.repeat(58)}…`);
    expect(titleFromMessage(`${'a'.repeat(57)}${'😀'.repeat(10)}`)).toBe(`${'a'.repeat(57)}😀…`);
  });
});
