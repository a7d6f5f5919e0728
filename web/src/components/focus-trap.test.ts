import { describe, expect, it } from 'vitest';
import { wrapFocus } from './focus-trap';

describe('wrapFocus', () => {
  it('sends Tab from the last element to the first, and Shift+Tab from the first to the last', () => {
    expect(wrapFocus(2, 3, false)).toBe(0);
    expect(wrapFocus(0, 3, true)).toBe(2);
  });

  it('leaves a move between two elements inside the dialog to the browser', () => {
    expect(wrapFocus(0, 3, false)).toBeNull();
    expect(wrapFocus(1, 3, false)).toBeNull();
    expect(wrapFocus(1, 3, true)).toBeNull();
    expect(wrapFocus(2, 3, true)).toBeNull();
  });

  it('from the dialog itself (no element focused yet) goes to the first or the last', () => {
    expect(wrapFocus(-1, 3, false)).toBe(0);
    expect(wrapFocus(-1, 3, true)).toBe(2);
  });

  it('with one element, keeps it focused either way; with none, has nowhere to go', () => {
    expect(wrapFocus(0, 1, false)).toBe(0);
    expect(wrapFocus(0, 1, true)).toBe(0);
    expect(wrapFocus(-1, 0, false)).toBeNull();
  });
});
