import { describe, expect, it } from 'vitest';
import { CHAT_TOOLS, MAX_HISTORY_DAYS } from './chat-tools.js';
import { parseToolCall } from './tool-executor.js';

const refusalOf = (name: string, args: string) => {
  const parsed = parseToolCall({ name, arguments: args });
  if (parsed.ok) throw new Error(`${name}(${args}) was accepted`);
  return JSON.parse(parsed.outcome.content) as { error: string; message: string; details?: string[] };
};
const argsOf = (name: string, args: string) => {
  const parsed = parseToolCall({ name, arguments: args });
  if (!parsed.ok) throw new Error(`${name}(${args}) was refused: ${parsed.outcome.content}`);
  return parsed.args;
};

describe('tool call arguments', () => {
  it('refuses a tool that does not exist, with no source', () => {
    const parsed = parseToolCall({ name: 'run_sql', arguments: '{}' });
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.outcome.source).toBeUndefined();
    expect(refusalOf('run_sql', '{}').error).toBe('unknown_tool');
  });

  it('refuses arguments that are not a JSON object', () => {
    expect(refusalOf('get_holdings', '{"portfolio_id": 1')).toMatchObject({ error: 'invalid_arguments', message: 'The arguments are not JSON.' });
    expect(refusalOf('get_holdings', '[1]').error).toBe('invalid_arguments');
    expect(refusalOf('get_holdings', '1').error).toBe('invalid_arguments');
    expect(refusalOf('get_holdings', 'null').error).toBe('invalid_arguments');
  });

  it('takes a portfolio id as an integer or digits, and nothing else', () => {
    expect(argsOf('get_holdings', '{"portfolio_id": 12}')).toEqual({ portfolio_id: 12 });
    expect(argsOf('get_holdings', '{"portfolio_id": "12"}')).toEqual({ portfolio_id: 12 });
    for (const bad of ['0', '-3', '1.5', '"12a"', '"1 OR 1=1"', 'true', 'null', '[12]']) {
      const r = refusalOf('get_holdings', `{"portfolio_id": ${bad}}`);
      expect(r.error, bad).toBe('invalid_arguments');
      expect(r.details?.join(' '), bad).toContain('portfolio_id');
    }
    expect(refusalOf('get_holdings', '{}').details?.join(' ')).toContain('portfolio_id');
  });

  it('refuses fields the tool does not have (no user id can be slipped in)', () => {
    const r = refusalOf('get_holdings', '{"portfolio_id": 1, "user_id": "someone-else"}');
    expect(r.error).toBe('invalid_arguments');
    expect(r.details?.join(' ')).toContain('user_id');
    expect(refusalOf('list_alerts', '{"user_id": "x"}').error).toBe('invalid_arguments');
  });

  it('takes tools without arguments with empty or no arguments', () => {
    expect(argsOf('list_alerts', '')).toEqual({});
    expect(argsOf('list_portfolios', '{}')).toEqual({});
  });

  it('normalises an asset type and ticker and refuses others', () => {
    expect(argsOf('get_asset', '{"type": " Share ", "ticker": "sber"}')).toEqual({ type: 'share', ticker: 'SBER' });
    expect(refusalOf('get_asset', '{"type": "custom_asset", "ticker": "X"}').details?.join(' ')).toContain('type');
    expect(refusalOf('get_asset', '{"type": "share", "ticker": ""}').details?.join(' ')).toContain('ticker');
    expect(refusalOf('get_asset', '{"type": "share", "ticker": "SB ER"}').details?.join(' ')).toContain('ticker');
    expect(refusalOf('get_dividends', '{"type": "share", "ticker": "' + 'A'.repeat(33) + '"}').error).toBe('invalid_arguments');
  });

  it('bounds the days of a price history and defaults them', () => {
    expect(argsOf('get_price_history', '{"type": "share", "ticker": "GAZP"}')).toEqual({ type: 'share', ticker: 'GAZP', days: 30 });
    expect(argsOf('get_price_history', `{"type": "share", "ticker": "GAZP", "days": ${MAX_HISTORY_DAYS}}`)).toMatchObject({ days: MAX_HISTORY_DAYS });
    for (const bad of ['0', String(MAX_HISTORY_DAYS + 1), '2.5', '"30"']) {
      expect(refusalOf('get_price_history', `{"type": "share", "ticker": "GAZP", "days": ${bad}}`).details?.join(' '), bad).toContain('days');
    }
  });

  it('offers the model the same required arguments the schemas demand', () => {
    for (const tool of CHAT_TOOLS) {
      const required = (tool.parameters.required as string[] | undefined) ?? [];
      expect(tool.parameters.additionalProperties, tool.name).toBe(false);
      expect(parseToolCall({ name: tool.name, arguments: '{}' }).ok, tool.name).toBe(required.length === 0);
    }
    expect(new Set(CHAT_TOOLS.map((t) => t.name)).size).toBe(CHAT_TOOLS.length);
  });
});
