import { describe, expect, it } from 'vitest';
import { webhookSecretMatches } from './telegram.controller.js';

describe('the Telegram webhook secret check', () => {
  const secret = 'webhook-secret-0123456789';

  it('accepts the secret, and nothing else: a prefix, a longer value, another case, no header, an array of headers', () => {
    expect(webhookSecretMatches(secret, secret)).toBe(true);
    for (const given of [secret.slice(0, -1), `${secret}0`, secret.toUpperCase(), '', undefined, [secret], 42]) expect(webhookSecretMatches(secret, given), String(given)).toBe(false);
  });

  it('accepts nothing when no secret is configured', () => {
    expect(webhookSecretMatches(undefined, '')).toBe(false);
    expect(webhookSecretMatches(undefined, 'anything')).toBe(false);
    expect(webhookSecretMatches('', '')).toBe(false);
  });
});
