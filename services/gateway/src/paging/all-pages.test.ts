import { describe, expect, it } from 'vitest';
import { allPages } from './all-pages.js';

describe('allPages', () => {
  const pagesOf = (answers: { n: number; next?: number | null }[]) => {
    const asked: (number | undefined)[] = [];
    let i = 0;
    return { asked, ask: (after: number | undefined) => (asked.push(after), Promise.resolve(answers[i++]!)) };
  };

  it('follows each page to the next from where it says, until one names none', async () => {
    const s = pagesOf([{ n: 1, next: 4 }, { n: 2, next: 9 }, { n: 3, next: null }]);
    expect((await allPages('list', s.ask, (p) => p.next)).map((p) => p.n)).toEqual([1, 2, 3]);
    expect(s.asked).toEqual([undefined, 4, 9]);
  });

  it('takes a page naming no next at all (an earlier release) as the whole list', async () => {
    const s = pagesOf([{ n: 1 }]);
    expect((await allPages('list', s.ask, (p) => p.next)).map((p) => p.n)).toEqual([1]);
  });

  it('refuses a page whose next start is not past its own', async () => {
    const s = pagesOf([{ n: 1, next: 4 }, { n: 2, next: 4 }]);
    await expect(allPages('list', s.ask, (p) => p.next)).rejects.toThrow('list went back from 4 to 4');
  });
});
