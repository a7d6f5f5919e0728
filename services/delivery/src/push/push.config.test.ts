import { ConfigError, loadConfig } from '@invest/platform/config/load-config';
import webpush from 'web-push';
import { describe, expect, it } from 'vitest';
import { deliveryConfigFrom, deliveryEnvSchema } from '../config/delivery.config.js';

const keys = webpush.generateVAPIDKeys();
const other = webpush.generateVAPIDKeys();
const CA = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

const config = (env: Record<string, string>) => deliveryConfigFrom(loadConfig(deliveryEnvSchema, env)).push;
function issues(env: Record<string, string>): string[] {
  try {
    loadConfig(deliveryEnvSchema, env);
  } catch (err) {
    if (err instanceof ConfigError) return err.issues;
    throw err;
  }
  return [];
}

describe('web push configuration', () => {
  it('development without keys generates them once (in the database); private endpoints are allowed', () => {
    expect(config({})).toEqual({ subject: 'mailto:dev@example.com', generateKeys: true, allowPrivateEndpoints: true });
  });

  it('production without keys leaves the channel off: nothing generated, nothing refused', () => {
    expect(config({ NODE_ENV: 'production' })).toEqual({ subject: 'mailto:dev@example.com', generateKeys: false, allowPrivateEndpoints: false });
  });

  it('production with keys and a subject uses them, and only public endpoints', () => {
    const env = { NODE_ENV: 'production', VAPID_PUBLIC_KEY: keys.publicKey, VAPID_PRIVATE_KEY: keys.privateKey, VAPID_SUBJECT: 'https://invest.example.org' };
    expect(config(env)).toEqual({ vapid: keys, subject: 'https://invest.example.org', generateKeys: false, allowPrivateEndpoints: false });
  });

  it('names what is wrong: one key without the other, keys of two pairs, a bad form, a subject missing in production', () => {
    expect(issues({ VAPID_PUBLIC_KEY: keys.publicKey })).toEqual(['VAPID_PRIVATE_KEY: VAPID_PRIVATE_KEY is required when VAPID_PUBLIC_KEY is set']);
    expect(issues({ VAPID_PRIVATE_KEY: keys.privateKey })).toEqual(['VAPID_PUBLIC_KEY: VAPID_PUBLIC_KEY is required when VAPID_PRIVATE_KEY is set']);
    expect(issues({ VAPID_PUBLIC_KEY: keys.publicKey, VAPID_PRIVATE_KEY: other.privateKey })).toEqual([
      'VAPID_PUBLIC_KEY: VAPID_PUBLIC_KEY is not the public key of VAPID_PRIVATE_KEY',
    ]);
    expect(issues({ VAPID_PUBLIC_KEY: keys.privateKey, VAPID_PRIVATE_KEY: keys.privateKey })[0]).toMatch(/^VAPID_PUBLIC_KEY: .*65 bytes/);
    expect(issues({ VAPID_SUBJECT: 'admin@example.org' })).toEqual(['VAPID_SUBJECT: VAPID_SUBJECT must be a mailto: address or an https: URL']);
    expect(issues({ NODE_ENV: 'production', VAPID_PUBLIC_KEY: keys.publicKey, VAPID_PRIVATE_KEY: keys.privateKey })).toEqual([
      'VAPID_SUBJECT: VAPID_SUBJECT is required in production when the VAPID keys are set',
    ]);
  });

  it('a test CA is taken outside production and refused in it', () => {
    expect(config({ WEB_PUSH_TEST_CA: CA }).testCa).toBe(CA);
    expect(issues({ NODE_ENV: 'production', WEB_PUSH_TEST_CA: CA })).toEqual([
      'WEB_PUSH_TEST_CA: WEB_PUSH_TEST_CA must not be set in production (it trusts the local push service)',
    ]);
    expect(issues({ WEB_PUSH_TEST_CA: 'not a certificate' })).toEqual(['WEB_PUSH_TEST_CA: WEB_PUSH_TEST_CA must be a PEM certificate']);
  });
});
