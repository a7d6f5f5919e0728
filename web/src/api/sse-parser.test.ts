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
