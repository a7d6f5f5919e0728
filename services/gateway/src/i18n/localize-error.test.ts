import { globSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { laravelFieldErrors, laravelParseOptions } from '../validation/laravel-errors.js';
import { unstorableTextErrors } from '../validation/request-input.js';
import { localizeErrorBody, localizeMessage, localizeRowErrors, templateOf } from './localize-error.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../../../..');

describe('localizeMessage', () => {
  it('keeps English as it is and renders Russian from the catalog, field names and plurals included', () => {
    expect(localizeMessage('The name field is required.', 'en')).toBe('The name field is required.');
    expect(localizeMessage('The name field is required.', 'ru')).toBe('Поле «название» обязательно.');
    expect(localizeMessage('The per page field must not be greater than 100.', 'ru')).toBe('Поле «на странице» должно быть не больше 100.');
    expect(localizeMessage('The name field must not be greater than 100 characters.', 'ru')).toBe('Поле «название» должно содержать не больше 100 символов.');
    expect(localizeMessage('The name field must be at least 1 characters.', 'ru')).toBe('Поле «название» должно содержать не меньше 1 символа.');
    expect(localizeMessage('Your plan allows 3 active notifications.', 'ru')).toBe(
      'На вашем тарифе можно держать включёнными не больше 3 уведомлений. Выключите одно из них или перейдите на платный тариф.',
    );
    expect(localizeMessage('You can have at most 21 portfolios (the portfolios per user limit).', 'ru')).toMatch(/^Можно завести не больше 21 портфеля\./);
    expect(localizeMessage('Notifications on a portfolio need a paid plan.', 'ru')).toBe('Уведомления для цели «портфель» доступны на платном тарифе.');
  });

  it('prefers the most specific entry: a field of its own over a generic one', () => {
    expect(localizeMessage('The selected context id is invalid.', 'ru')).toBe('Выбрано недопустимое значение поля «портфель».');
    expect(localizeMessage('The unread filter must be true or false.', 'ru')).toBe('Фильтр «непрочитанные» должен быть true или false.');
  });

  it("words a 422's summary with the count of the other errors", () => {
    expect(localizeMessage('The name field is required. (and 2 more errors)', 'ru')).toBe('Поле «название» обязательно. (и ещё 2 ошибки)');
    expect(localizeMessage('The name field is required. (and 1 more error)', 'ru')).toBe('Поле «название» обязательно. (и ещё 1 ошибка)');
  });

  it('leaves an unknown message English rather than guessing', () => {
    expect(localizeMessage('Something nobody wrote down.', 'ru')).toBe('Something nobody wrote down.');
  });

  it('localizes the message and every field error of a body, and nothing else', () => {
    const body = { message: 'Your plan allows 3 active notifications.', code: 'plan_required', limit: { active_notifications: 3 } };
    expect(localizeErrorBody(body, 'en')).toBe(body);
    expect(localizeErrorBody(body, 'ru')).toEqual({ ...body, message: expect.stringMatching(/^На вашем тарифе/) });
    const v = localizeErrorBody({ message: 'The name field is required.', errors: { name: ['The name field is required.'] } }, 'ru');
    expect(v).toEqual({ message: 'Поле «название» обязательно.', errors: { name: ['Поле «название» обязательно.'] } });
  });
});

describe('localizeRowErrors', () => {
  const rows = [
    { line: 2, status: 'new', errors: [] },
    {
      line: 3,
      status: 'error',
      errors: [
        { field: 'row', code: 'columns', message: 'The row has 7 fields, the header 6. With "," as the separator, quote numbers with a decimal comma ("250,5").' },
        { field: 'date', code: 'required', message: 'The date is required.' },
        { field: 'quantity', code: 'invalid_number', message: 'The quantity must be greater than 0.' },
        { field: 'ticker', code: 'asset_not_found', message: 'No asset NOSUCH was found.' },
        { field: 'ticker', code: 'asset_not_found', message: 'No asset NOSUCH was found among bond assets.' },
        { field: 'asset_type', code: 'asset_ambiguous', message: 'Several assets are called SBER (share, custom): give the asset type or the ISIN.' },
        { field: 'currency', code: 'currency_mismatch', message: "Prices are in the portfolio's currency, RUB; this row is in USD." },
        { field: 'quantity', code: 'oversell', message: 'Cannot sell 5: only 3 held on 2024-02-15.' },
      ],
    },
  ];

  it('keeps English rows as they are', () => {
    expect(localizeRowErrors(rows, 'en')).toBe(rows);
  });

  it("renders each row error's message in Russian and keeps its field and code", () => {
    const [clean, bad] = localizeRowErrors(rows, 'ru');
    expect(clean).toBe(rows[0]);
    expect(bad!.errors.map((e) => `${e.field}:${e.code}`)).toEqual(rows[1]!.errors.map((e) => `${e.field}:${e.code}`));
    expect(bad!.errors.map((e) => e.message)).toEqual([
      'В строке 7 полей, а в заголовке 6. При разделителе «,» число с десятичной запятой берите в кавычки ("250,5").',
      'Поле «дата» обязательно.',
      'Поле «количество» должно быть больше 0.',
      'Актив NOSUCH не найден.',
      'Актив NOSUCH не найден среди активов типа «облигация».',
      'Активов с названием SBER несколько (share, custom): укажите тип актива или ISIN.',
      'Цены указываются в валюте портфеля, RUB; в этой строке — USD.',
      'Нельзя продать 5: на 2024-02-15 в портфеле только 3.',
    ]);
  });
});

describe('every message a client can receive has Russian text', () => {
  it('every wording of a zod issue the gateway produces', () => {
    const schema = z.object({
      name: z.string().min(2).max(3),
      title: z.string().min(1),
      count: z.number().int().min(1).max(5).multipleOf(2),
      ratio: z.number().gt(0).lt(1),
      flag: z.boolean(),
      items: z.array(z.number()).min(1).max(2),
      meta: z.object({}),
      when: z.date(),
      big: z.bigint(),
      kind: z.enum(['a', 'b']),
      email: z.email(),
      either: z.union([z.string(), z.number()]),
      strict: z.strictObject({}),
      refined: z.string().refine(() => false),
    });
    const inputs: unknown[] = [
      {},
      { name: 1, title: 1, count: 'x', ratio: 'x', flag: 'x', items: 'x', meta: 'x', when: 'x', big: 'x', kind: 'c', email: 'x', either: {}, strict: { extra: 1 }, refined: 'x' },
      { name: 'a', title: '', count: 1.5, ratio: 0, items: [], kind: 'a' },
      { name: 'abcd', count: 3, ratio: 1, items: [1, 2, 3] },
      { count: 0 },
      { count: 6 },
    ];
    const messages = new Set<string>();
    for (const input of inputs) {
      const result = schema.safeParse(input, laravelParseOptions);
      if (!result.success) for (const list of Object.values(laravelFieldErrors(result.error, 'body'))) list.forEach((m) => messages.add(m));
    }
    for (const root of ['body', 'query'] as const) {
      const result = z.object({}).safeParse('x', laravelParseOptions);
      if (!result.success) for (const list of Object.values(laravelFieldErrors(result.error, root))) list.forEach((m) => messages.add(m));
    }
    for (const input of [{ name: 'a\u0000' }, { name: '\ud800' }, { 'k\u0000': 1 }, 'a\u0000']) {
      for (const list of Object.values(unstorableTextErrors(input, 'body'))) list.forEach((m) => messages.add(m));
    }
    expect(messages.size).toBeGreaterThan(20);
    expect([...messages].filter((m) => !templateOf(m))).toEqual([]);
  });

  /**
   * Every sentence written in the code of contracts, platform and the services (messages of ServiceErrors, of
   * contract schemas, of quotas), with each `${...}` standing for some value, must have a catalog entry. Texts that
   * never reach an error body are left out by where they are: logs, OpenAPI descriptions, and the files below.
   */
  it('every message written in contracts, platform and the services', () => {
    const notErrorBodies = [
      /\/(migrations|testing|dev|docs|health|i18n)\//,
      /\.(job|command|config|main)\.ts$/,
      /market-data\/.*\.parser\.ts$/,
      /contracts\/src\/(common\/(decimal|events)|portfolios\/portfolio-figures)\.ts$/,
      /services\/chat\/src\/(providers\/(context-provider|market-context)|generation\/)/,
      /services\/chat\/src\/providers\/portfolio-health\.provider\.ts$/,
      /services\/delivery\/src\/(email|telegram|dispatch)\//,
      /services\/portfolios\/src\/statistics\/xirr\.ts$/,
      /services\/alerts\/src\/evaluation\//,
      // Tool results, read by the model, never by a client.
      /services\/chat\/src\/tools\//,
      // Inbox notices, written in both languages where they are rendered.
      /services\/alerts\/src\/notices\//,
      /platform\/src\/(messaging|context)\//,
      // Prometheus metrics' help texts, read by operators at /metrics.
      /platform\/src\/metrics\/|\.metrics\.ts$/,
      /services\/gateway\/src\/errors\/client-error\.handler\.ts$/,
      // Pages of their own in both languages; Telegram's webhook; a JSON parser's internal refusal (a fixed 400).
      /services\/gateway\/src\/(delivery\/(email|telegram)\.controller|http\/exact-json)\.ts$/,
    ];
    // Said by a 503 or a 500 the gateway replaces with its own words, or by a service to its log. (A deal import
    // preview's row errors and a chat stream's `error` events are localized too, so they are checked here.)
    const notShown = /answered (unexpectedly|.* unexpectedly)|did not answer|is not available|deadline|Internal error|too large to send|not configured|not reachable|payment provider|could not be deleted now|did not say whether|Invalid signature|could not be read|The (TransactionId|Amount|Currency) /;
    const files = globSync(['contracts/src/**/*.ts', 'platform/src/**/*.ts', 'services/*/src/**/*.ts'], { cwd: ROOT }).filter(
      (f) => !f.endsWith('.test.ts') && !notErrorBodies.some((re) => re.test(f)),
    );
    const missing: string[] = [];
    for (const file of files) {
      const source = ts.createSourceFile(file, readFileSync(join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest, true);
      const visit = (node: ts.Node): void => {
        if (ts.isDecorator(node) || (ts.isCallExpression(node) && /(\.|^)(logger|log|describe|meta|debug|info|warn|error|fatal|trace)\b/.test(node.expression.getText(source)))) return;
        if (ts.isPropertyAssignment(node) && /^(description|summary|example)$/.test(node.name.getText(source))) return;
        // OpenAPI texts of parameters and bodies.
        if (ts.isVariableDeclaration(node) && /(Docs|FORMAT)$/.test(node.name.getText(source))) return;
        let text: string | undefined;
        if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) text = node.text;
        else if (ts.isTemplateExpression(node)) text = node.head.text + node.templateSpans.map((s) => `x${s.literal.text}`).join('');
        // A sentence put together from parts (`The ${field} ${problem}.`) is checked through the parts' own tests.
        const words = text?.replace(/\bx\b/g, '').match(/[a-z]{2,}/gi) ?? [];
        if (text !== undefined && words.length > 1 && /^[A-Z].* .*\.$/s.test(text) && !notShown.test(text) && !templateOf(text)) {
          missing.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1} ${text}`);
        }
        if (!ts.isTemplateExpression(node)) ts.forEachChild(node, visit);
      };
      visit(source);
    }
    expect(files.length).toBeGreaterThan(100);
    expect(missing).toEqual([]);
  });
});
