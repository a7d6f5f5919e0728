import { describe, expect, it } from 'vitest';
import { SseParser } from './sse-parser';

describe('SSE parser', () => {
  it('parses events split across chunks, with ids, names and comments', () => {
    const p = new SseParser();
    expect(p.push('retry: 3000\n: connected\n\nid: 4')).toEqual([]);
    expect(p.push('2\nevent: notification\ndata: {"id":42}\n')).toEqual([]);
    expect(p.push('\n: heartbeat\n\n')).toEqual([{ id: '42', event: 'notification', data: '{"id":42}' }]);
    expect(p.lastEventId).toBe('42');
    expect(p.retryMs).toBe(3000);
  });

  it('joins multi-line data and accepts CRLF and CR line ends', () => {
    const p = new SseParser();
    expect(p.push('data: a\r\ndata: b\r\n\r\ndata:c\r')).toEqual([{ event: 'message', data: 'a\nb' }]);
    expect(p.push('\r\n')).toEqual([{ event: 'message', data: 'c' }]);
  });

  it('keeps the last id for later events, as EventSource does', () => {
    const p = new SseParser();
    const events = p.push('id: 1\nevent: start\ndata: {}\n\nevent: chunk\ndata: {"content":"x"}\n\n');
    expect(events.map((e) => e.id)).toEqual(['1', '1']);
  });

  it('dispatches nothing for a block without data', () => {
    expect(new SseParser().push('event: ping\n\n')).toEqual([]);
  });
});

describe('SSE parser: the last event id and reconnects', () => {
  it('moves lastEventId only when an event is dispatched, not when its id line is read (WHATWG)', () => {
    const p = new SseParser();
    p.push('id: 6\nevent: notification\ndata: {"id":6}\n\n');
    p.push('id: 7\nevent: notification\n');
    expect(p.lastEventId).toBe('6');
    p.push('data: {"id":7}\n\n');
    expect(p.lastEventId).toBe('7');
  });

  it('a block without data still moves it (the id is dispatched, no event is)', () => {
    const p = new SseParser();
    expect(p.push('id: 3\n\n')).toEqual([]);
    expect(p.lastEventId).toBe('3');
  });

  it('reset() drops what a dropped connection left half read, keeping the last id and the retry', () => {
    const p = new SseParser();
    p.push('retry: 250\nid: 6\ndata: {"id":6}\n\nid: 7\nevent: notification\ndata: {"id":7,"ti');
    p.reset();
    expect([p.lastEventId, p.retryMs]).toEqual(['6', 250]);
    // The next connection's events are whole; one without its own id carries the last dispatched one.
    expect(p.push('tle":"x"}\n\ndata: {"id":8}\n\n')).toEqual([{ id: '6', event: 'message', data: '{"id":8}' }]);
  });
});
