import { describe, expect, it } from 'vitest';
import { correlationIdFrom } from './correlation-id.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('correlationIdFrom', () => {
  it('keeps a well-formed client id', () => {
    for (const id of ['abcdefgh', 'req-2026.11.21:0001_x', 'A'.repeat(128), '5f0c1c8e-3c4b-4a8e-9d7a-2b1e0f6a9c11']) {
      expect(correlationIdFrom(id)).toBe(id);
    }
  });

  it('replaces a missing, repeated, too short, too long or unsafe id by a UUID', () => {
    for (const bad of [undefined, '', 'short', 'A'.repeat(129), 'has space here', 'new\nline-injection', 'émoji-ok?', '<script>1</script>', ['abcdefgh1', 'abcdefgh2']]) {
      expect(correlationIdFrom(bad)).toMatch(UUID);
    }
  });
});
