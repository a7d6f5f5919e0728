import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from './logger.js';
import { redactUrl, SECRET_PATH_PREFIXES } from './redact-url.js';

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

  it('hides a secret path segment: the one after a listed prefix, wherever the path starts, escaped or not; a bot token', () => {
    expect(SECRET_PATH_PREFIXES).toContain('/api/email/unsubscribe/');
    expect(redactUrl('/api/email/unsubscribe/AbC-123_xyz')).toBe('/api/email/unsubscribe/[redacted]');
    expect(redactUrl('/api/email/unsubscribe/AbC-123_xyz/more?lang=en#top')).toBe('/api/email/unsubscribe/[redacted]/more?lang=en#top');
    expect(redactUrl('https://invest.example.org/api/email/unsubscribe/AbC?token=t')).toBe('https://invest.example.org/api/email/unsubscribe/[redacted]?token=[redacted]');
    // Behind a base path, doubled slashes, another case, escaped characters.
    expect(redactUrl('/invest/API/Email//unsubscribe/AbC')).toBe('/invest/API/Email//unsubscribe/[redacted]');
    expect(redactUrl('/api/email/%75nsubscribe/AbC%2Dx')).toBe('/api/email/%75nsubscribe/[redacted]');
    expect(redactUrl('https://api.telegram.org/bot123456:ABC-def_1/sendMessage')).toBe('https://api.telegram.org/[redacted]/sendMessage');
    // Not a secret: the prefix alone, a longer segment name, other routes.
    expect(redactUrl('/api/email/unsubscribe/')).toBe('/api/email/unsubscribe/');
    expect(redactUrl('/api/email/unsubscribed/AbC')).toBe('/api/email/unsubscribed/AbC');
    expect(redactUrl('/api/email/confirm')).toBe('/api/email/confirm');
    expect(redactUrl('/api/portfolios/42/bot')).toBe('/api/portfolios/42/bot');
  });

  it('is applied to every url a logger writes', () => {
    const lines: string[] = [];
    const sink = new Writable({ write: (chunk: Buffer, _enc, done) => (lines.push(chunk.toString()), done()) });
    createLogger('probe', 'info', sink).info({ url: '/api/ai-chat?jwt=secret-jwt-value&x=1', status: 401 }, 'request');
    createLogger('probe', 'info', sink).info({ url: '/api/email/unsubscribe/secret-unsubscribe-token', status: 200 }, 'request');
    expect(lines).toHaveLength(2);
    expect(lines.join()).not.toMatch(/secret-jwt-value|secret-unsubscribe-token/);
    expect(JSON.parse(lines[0]!)).toMatchObject({ url: '/api/ai-chat?jwt=[redacted]&x=1', status: 401 });
    expect(JSON.parse(lines[1]!)).toMatchObject({ url: '/api/email/unsubscribe/[redacted]', status: 200 });
  });
});
