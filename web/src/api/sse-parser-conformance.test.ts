/** The text/event-stream parser against the WHATWG rules. */
import { describe, expect, it } from 'vitest';
import { SseParser } from './sse-parser';

describe('SSE parser CR line ends', () => {
  it('dispatches an event whose blank line is a CR at the very end of a chunk (CR-only line ends)', () => {
    // WHATWG: CR alone ends a line. "data: x\r\r" is a complete event; the parser keeps the last \r waiting for a
    // possible \n, so the event is held until the server sends something else (the next heartbeat or event).
    expect(new SseParser().push('data: x\r\r')).toEqual([{ event: 'message', data: 'x' }]);
  });
});

describe('SSE parser fields and line ends', () => {
  it('ignores an id with NUL, a retry that is not all digits, unknown and mis-cased fields; keeps the id across events', () => {
    const p = new SseParser();
    expect(p.push('id: 5\ndata: a\n\nid: 6\0\nretry: 1x\nretry: -1\nretry:  7\nData: no\ndata\n\n')).toEqual([
      { id: '5', event: 'message', data: 'a' },
      { id: '5', event: 'message', data: '' },
    ]);
    expect(p.lastEventId).toBe('5');
    expect(p.retryMs).toBeUndefined();
  });

  it('CRLF split across chunks makes one line end; a final event without a blank line is not dispatched', () => {
    const p = new SseParser();
    expect(p.push('data: a\r')).toEqual([]);
    expect(p.push('\ndata: b\r\n\r\ndata: cut')).toEqual([{ event: 'message', data: 'a\nb' }]);
  });

  it('an empty id resets the last event id', () => {
    const p = new SseParser();
    p.push('id: 3\ndata: x\n\nid\ndata: y\n\n');
    expect(p.lastEventId).toBe('');
  });
});
