import { decimalOutputSchema, decimalSchema, NumberLiteral } from '@invest/contracts';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import Fastify from 'fastify';
import { exactJsonBodyParser, formBodyFields, installDecimalReplySerializer, parseJsonExact, withDecimalNumbers } from './exact-json.js';

const parse = (text: string) =>
  new Promise<{ err: Error | null; parsed?: unknown }>((resolve) => exactJsonBodyParser(undefined, Buffer.from(text), (err, parsed) => resolve({ err, parsed })));

describe('parseJsonExact', () => {
  it('keeps number literals a double would change as their text, and every other value as JSON.parse gives it', () => {
    expect(parseJsonExact('{"a":1,"b":42290747.88,"c":[0.1,-2.5e3],"d":"x","e":null,"f":true}')).toEqual({ a: 1, b: 42290747.88, c: [0.1, -2500], d: 'x', e: null, f: true });
    // Strings that look like numbers, escaped quotes and keys are left alone.
    expect(parseJsonExact('{"1.00000000000000001":"2.00000000000000001","k\\"9.99999999999999999":-0}')).toEqual({ '1.00000000000000001': '2.00000000000000001', 'k"9.99999999999999999': -0 });
    const kept = parseJsonExact('{"p":999999999999999.99999999,"q":123456789.123456789,"r":1e400,"s":5e-324,"t":[-1E+400]}');
    expect(kept).toEqual({
      p: new NumberLiteral('999999999999999.99999999'),
      q: new NumberLiteral('123456789.123456789'),
      r: new NumberLiteral('1e400'),
      s: 5e-324,
      t: [new NumberLiteral('-1E+400')],
    });
    // Not strings (a string field refuses them), sent on as their text; a decimal schema reads them exactly.
    expect((kept as { p: unknown }).p).toBeInstanceOf(NumberLiteral);
    expect(JSON.stringify(kept)).toBe('{"p":"999999999999999.99999999","q":"123456789.123456789","r":"1e400","s":5e-324,"t":["-1E+400"]}');
    expect(z.string().safeParse((kept as { q: unknown }).q).success).toBe(false);
    expect(decimalSchema('price').parse((kept as { p: unknown }).p)).toBe('999999999999999.99999999');
    expect(parseJsonExact('[1,2]')).toEqual([1, 2]);
    expect(parseJsonExact('"text"')).toBe('text');
  });

  it('refuses prototype poisoning and malformed JSON with a 400', async () => {
    expect(() => parseJsonExact('{"__proto__":{"x":1}}')).toThrow(/prototype/);
    expect(() => parseJsonExact('{"constructor":{"prototype":{"x":1}}}')).toThrow(/prototype/);
    expect((await parse('{"a":')).err).toMatchObject({ statusCode: 400, code: 'FST_ERR_CTP_INVALID_JSON_BODY' });
    expect((await parse('')).err).toMatchObject({ statusCode: 400, code: 'FST_ERR_CTP_EMPTY_JSON_BODY' });
    expect(await parse('{"a":0.30000000000000004}')).toEqual({ err: null, parsed: { a: 0.30000000000000004 } });
  });

  it('refuses bytes that are not UTF-8 with a 400, rather than store U+FFFD for them', async () => {
    const bytes = (...parts: (string | number[])[]) =>
      new Promise<{ err: Error | null; parsed?: unknown }>((resolve) =>
        exactJsonBodyParser(undefined, Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p)))), (err, parsed) => resolve({ err, parsed })),
      );
    for (const bad of [[0xff, 0xfe], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe2, 0x82]]) {
      expect((await bytes('{"name":"', bad, '"}')).err, JSON.stringify(bad)).toMatchObject({ statusCode: 400, code: 'ERR_BODY_NOT_UTF8' });
    }
    expect(await bytes('{"name":"', [0xe2, 0x82, 0xac], 'Ж"}')).toEqual({ err: null, parsed: { name: '€Ж' } });
    // A byte order mark stays in the text, as before: not JSON.
    expect((await bytes([0xef, 0xbb, 0xbf], '{}')).err).toMatchObject({ statusCode: 400, code: 'FST_ERR_CTP_INVALID_JSON_BODY' });
  });
});

describe('formBodyFields', () => {
  it('reads a form as URLSearchParams does, first value of a name winning', () => {
    const cases = ['a=1&b=x+y&a=2', 'name=%E2%82%AC%20Ж&empty=&flag', 'p=100%25&q=%zz&r=%', 'k%3Dx=v%26w&&=', 'mixed=Ж%D0%96ж'];
    for (const body of cases) {
      const expected: Record<string, string> = {};
      for (const [k, v] of new URLSearchParams(body)) if (!(k in expected)) expected[k] = v;
      expect({ ...(formBodyFields(Buffer.from(body)) as Record<string, string>) }, body).toEqual(expected);
    }
  });

  it('refuses bytes that are not UTF-8, raw or escaped, with a 400 (URLSearchParams would store U+FFFD)', () => {
    for (const body of [Buffer.from('name=%FF%FE'), Buffer.from('name=%ED%A0%80'), Buffer.from('name=%E2%82'), Buffer.from('%C0%AF=x'), Buffer.concat([Buffer.from('name='), Buffer.from([0xff])])]) {
      expect(formBodyFields(body), body.toString('latin1')).toMatchObject({ statusCode: 400, code: 'ERR_BODY_NOT_UTF8' });
    }
  });
});

describe('withDecimalNumbers', () => {
  it('writes decimal text as JSON numbers with exactly its digits, following the schema', async () => {
    const schema = z.object({ data: z.array(z.object({ amount: decimalOutputSchema, net: decimalOutputSchema.nullable(), name: z.string() })) });
    const reply = { data: [{ amount: '42290747.88', net: null, name: '42' }, { amount: '999999999999999.99999999', net: '-0.5', name: 'x' }], meta: { total: 2 } };
    const app = Fastify();
    installDecimalReplySerializer(app);
    app.get('/', () => withDecimalNumbers(schema, reply));
    // A stored string that looks like a marked decimal stays a string: the marker is random per process.
    app.get('/text', () => ({ name: 'dec000000000000000000000000:5' }));
    const answer = await app.inject({ method: 'GET', url: '/' });
    expect(answer.body).toBe(
      '{"data":[{"amount":42290747.88,"net":null,"name":"42"},{"amount":999999999999999.99999999,"net":-0.5,"name":"x"}],"meta":{"total":2}}',
    );
    expect((await app.inject({ method: 'GET', url: '/text' })).body).toBe('{"name":"dec000000000000000000000000:5"}');
    await app.close();
  });
});
