import { ErrorCode } from '@invest/contracts';
import { ServiceError } from '@invest/platform/rpc/service-error';
import { describe, expect, it } from 'vitest';
import { idempotencyOptions } from './idempotency-key.js';

describe('idempotencyOptions', () => {
  it('passes a valid key and nothing without the header', () => {
    expect(idempotencyOptions(undefined)).toEqual({});
    expect(idempotencyOptions('a')).toEqual({ idempotencyKey: 'a' });
    expect(idempotencyOptions('"8e03978e-40d5"')).toEqual({ idempotencyKey: '"8e03978e-40d5"' });
    expect(idempotencyOptions('~'.repeat(255))).toEqual({ idempotencyKey: '~'.repeat(255) });
  });

  it.each([[''], ['x'.repeat(256)], ['a b'], ['ключ'], ['a\tb'], ['a\u007f'], [['a', 'b']], ['a, b']])('rejects %j with a 422 naming the header', (value) => {
    const err = (() => {
      try {
        idempotencyOptions(value);
      } catch (e) {
        return e;
      }
      return undefined;
    })() as ServiceError;
    expect(err).toBeInstanceOf(ServiceError);
    expect(err.code).toBe(ErrorCode.Validation);
    expect(Object.keys(err.errors ?? {})).toEqual(['Idempotency-Key']);
  });
});
