import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from './logger.js';
import { redactUrl } from './redact-url.js';

describe('redactUrl', () => {
  it('hides the value of every credential parameter and keeps the rest as sent', () => {
    expect(redactUrl('/api/notifications/stream?token=eyJhbGciOi.x.y&since=5')).toBe('/api/notifications/stream?token=[redacted]&since=5');
    expect(redactUrl('/x?a=1&ACCESS_TOKEN=abc&jwt=j&Api_Key=k&signature=s&tokens=keep#frag')).toBe(
      '/x?a=1&ACCESS_TOKEN=[redacted]&jwt=[redacted]&Api_Key=[redacted]&signature=[redacted]&tokens=keep#frag',
    );
    // Escaped names, a bare name, repeats, and an absolute URL.
    expect(redactUrl('https://h/p?%74oken=abc&access%5Ftoken=d&token&token=2')).toBe('https://h/p?%74oken=[redacted]&access%5Ftoken=[redacted]&token=[redacted]&token=[redacted]');
    expect(redactUrl('https://pro-api.example/coins?ids=btc&key=k-1&keys=2')).toBe('https://pro-api.example/coins?ids=btc&key=[redacted]&keys=2');
    expect(redactUrl('/api/screener?page=2')).toBe('/api/screener?page=2');
    expect(redactUrl(undefined)).toBeUndefined();
  });

  it('is applied to every url a logger writes', () => {
    const lines: string[] = [];
    const sink = new Writable({ write: (chunk: Buffer, _enc, done) => (lines.push(chunk.toString()), done()) });
    createLogger('probe', 'info', sink).info({ url: '/api/ai-chat?jwt=secret-jwt-value&x=1', status: 401 }, 'request');
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain('secret-jwt-value');
    expect(JSON.parse(lines[0]!)).toMatchObject({ url: '/api/ai-chat?jwt=[redacted]&x=1', status: 401 });
  });
});
