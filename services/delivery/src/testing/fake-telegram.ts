/**
 * A local stand-in for the Telegram Bot API (shared/reference/telegram-bot-api.md) for one bot, speaking its wire
 * format: `/bot<token>/<method>` (GET or POST; query, JSON or form parameters; method names in any case),
 * `{"ok":true,"result":…}` or `{"ok":false,"error_code","description","parameters"}` with the HTTP status
 * equal to `error_code` and a `Retry-After` header on a 429. Methods: getMe, setWebhook, getWebhookInfo,
 * deleteWebhook, sendMessage (HTML parse mode checked as Telegram does: only its tags, only its entities),
 * answerCallbackQuery. Updates (what a user types) are posted to the webhook with the secret header.
 *
 * Tests use its hooks (`userSays`, `block`, `throttleNext`, `failNext`, `messages`); a person uses its page
 * (`GET /`): each chat and what the bot sent it, and a form to write to the bot as a user of a chat.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { escapeHtml } from '@invest/platform/http/escape-html';

export interface FakeTelegramOptions {
  token: string;
  botUsername?: string;
  botId?: number;
  /** How long a webhook call may take before it counts as failed (default 10 s). */
  webhookTimeoutMs?: number;
}

/** A message the bot sent, as the stand-in understood it. */
export interface FakeSentMessage {
  message_id: number;
  chat_id: number;
  /** The text as sent (HTML when `parse_mode` is HTML). */
  raw: string;
  /** What the user sees: the text with its markup parsed away. */
  text: string;
  parse_mode: string | null;
  /** Tags used, in order (`b`, `a`…), for assertions on formatting. */
  tags: string[];
  buttons: { text: string; url?: string; callback_data?: string }[][];
  /** Sent as a paid broadcast (`allow_paid_broadcast`: above the free ~30 messages a second). */
  paid_broadcast: boolean;
  date: number;
  /** When it was accepted (ms since epoch). */
  at: number;
}

export interface FakeChat {
  id: number;
  username: string | null;
  first_name: string;
  language_code: string;
  /** The user blocked the bot: sendMessage answers 403. */
  blocked: boolean;
  /** What the user typed (each a delivered or pending update). */
  said: { text: string; update_id: number; status: number | null; at: number }[];
  received: FakeSentMessage[];
}

export interface FakeTelegramCall {
  method: string;
  params: Record<string, unknown>;
  status: number;
  at: number;
}

export interface FakeTelegram {
  /** The API root (`TELEGRAM_API_URL`). */
  url: string;
  /** The page for people. */
  pageUrl: string;
  token: string;
  botUsername: string;
  /** The webhook the bot set, if any. */
  webhook(): { url: string; secretToken: string | null; allowedUpdates: string[] | null } | null;
  chats(): FakeChat[];
  /** What the bot sent this chat, oldest first. */
  messages(chatId: number): FakeSentMessage[];
  /** Every API call, oldest first (the token is never part of it). */
  calls: FakeTelegramCall[];
  /**
   * A user of this chat writes `text` to the bot: the Update is posted to the webhook (or kept for when one is
   * set). Resolves with the webhook's HTTP status (null when none is set or it could not be reached).
   */
  userSays(chatId: number, text: string, from?: { username?: string; first_name?: string; language_code?: string; type?: string }): Promise<number | null>;
  /** Posts any Update (with the next update_id unless it has one) to the webhook; resolves with its status. */
  sendUpdate(update: Record<string, unknown>): Promise<number | null>;
  /** The user blocks (or unblocks) the bot: sendMessage to the chat answers 403 "bot was blocked by the user". */
  block(chatId: number, blocked?: boolean): void;
  /** The next `count` sendMessage calls (to `chatId`, or any) answer 429 with `retry_after`. */
  throttleNext(count: number, retryAfterS: number, chatId?: number): void;
  /** The next `count` calls of `method` (default sendMessage) answer `status` (default 502 Bad Gateway). */
  failNext(count: number, status?: number, method?: string): void;
  close(): Promise<void>;
}

/** The tags Telegram's HTML parse mode knows (reference §3). */
const HTML_TAGS = new Set(['b', 'strong', 'i', 'em', 'u', 'ins', 's', 'strike', 'del', 'span', 'tg-spoiler', 'a', 'code', 'pre', 'blockquote', 'tg-emoji', 'tg-time']);
const NAMED_ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"' };
const TEXT_MAX = 4096;

class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly description: string,
    readonly parameters?: Record<string, unknown>,
  ) {
    super(description);
  }
}

/**
 * Parses text in Telegram's HTML parse mode: the plain text the user sees and the tags, or an ApiError
 * "can't parse entities" for what Telegram refuses (an unknown tag, a bare `<`, an unknown entity, bad nesting).
 */
export function parseTelegramHtml(html: string): { text: string; tags: string[] } {
  const refuse = (why: string, at: number) => new ApiError(400, `Bad Request: can't parse entities: ${why} at byte offset ${Buffer.byteLength(html.slice(0, at))}`);
  let text = '';
  const tags: string[] = [];
  const open: string[] = [];
  let i = 0;
  while (i < html.length) {
    const c = html[i]!;
    if (c === '<') {
      const end = html.indexOf('>', i);
      if (end < 0) throw refuse('unclosed start tag', i);
      const inner = html.slice(i + 1, end);
      const m = /^(\/?)([a-z-]+)(\s[^<>]*)?$/i.exec(inner);
      if (!m) throw refuse(`unsupported start tag "${inner.slice(0, 20)}"`, i);
      const name = m[2]!.toLowerCase();
      if (!HTML_TAGS.has(name)) throw refuse(`unsupported start tag "${name}"`, i);
      if (m[1]) {
        if (open.pop() !== name) throw refuse(`unmatched end tag "${name}"`, i);
      } else {
        open.push(name);
        tags.push(name);
      }
      i = end + 1;
    } else if (c === '&') {
      const m = /^&(#x[0-9a-f]+|#\d+|[a-z]+);/i.exec(html.slice(i, i + 12));
      if (!m) throw refuse('character "&" must be escaped as "&amp;"', i);
      const name = m[1]!;
      if (name.startsWith('#')) text += String.fromCodePoint(name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : Number(name.slice(1)));
      else if (NAMED_ENTITIES[name.toLowerCase()] !== undefined) text += NAMED_ENTITIES[name.toLowerCase()];
      else throw refuse(`unsupported HTML entity "&${name};"`, i);
      i += m[0].length;
    } else if (c === '>') {
      // Telegram takes a bare '>' in text, but the reference says to escape it; the stand-in is as strict as the reference.
      throw refuse('character ">" must be escaped as "&gt;"', i);
    } else {
      text += c;
      i++;
    }
  }
  if (open.length) throw refuse(`can't find end tag corresponding to start tag "${open.at(-1)}"`, html.length);
  return { text, tags };
}

function buttonsOf(markup: unknown): FakeSentMessage['buttons'] {
  if (markup === undefined) return [];
  const value = typeof markup === 'string' ? safeJson(markup) : markup;
  const rows = (value as { inline_keyboard?: unknown } | null)?.inline_keyboard;
  if (!Array.isArray(rows) || !rows.every(Array.isArray)) throw new ApiError(400, "Bad Request: can't parse reply keyboard markup JSON object");
  return rows.map((row: unknown[]) =>
    row.map((b) => {
      const button = b as { text?: unknown; url?: unknown; callback_data?: unknown };
      if (typeof button.text !== 'string' || !button.text) throw new ApiError(400, "Bad Request: can't parse inline keyboard button: Text must be non-empty");
      const actions = [button.url, button.callback_data].filter((v) => v !== undefined);
      if (actions.length !== 1) throw new ApiError(400, "Bad Request: can't parse inline keyboard button: exactly one of the optional fields must be used");
      if (button.url !== undefined && (typeof button.url !== 'string' || !/^(https?|tg):\/\/\S+$/.test(button.url))) {
        throw new ApiError(400, `Bad Request: inline keyboard button URL '${String(button.url)}' is invalid: Wrong HTTP URL`);
      }
      if (button.callback_data !== undefined && (typeof button.callback_data !== 'string' || Buffer.byteLength(button.callback_data) > 64)) {
        throw new ApiError(400, 'Bad Request: BUTTON_DATA_INVALID');
      }
      return { text: button.text, ...(button.url !== undefined ? { url: button.url as string } : {}), ...(button.callback_data !== undefined ? { callback_data: button.callback_data as string } : {}) };
    }),
  );
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** The method's parameters from the query string, a JSON body or a form body (where objects are JSON strings). */
async function paramsOf(req: IncomingMessage, url: URL): Promise<Record<string, unknown>> {
  const params: Record<string, unknown> = Object.fromEntries(url.searchParams);
  const body = await readBody(req);
  if (!body) return params;
  const type = req.headers['content-type'] ?? '';
  if (type.includes('application/json')) {
    const parsed = safeJson(body);
    if (!parsed || typeof parsed !== 'object') throw new ApiError(400, "Bad Request: can't parse JSON object");
    return { ...params, ...(parsed as Record<string, unknown>) };
  }
  if (type.includes('application/x-www-form-urlencoded')) return { ...params, ...Object.fromEntries(new URLSearchParams(body)) };
  return params;
}


export async function startFakeTelegram(opts: FakeTelegramOptions, port = 0, host = '127.0.0.1'): Promise<FakeTelegram> {
  const botUsername = opts.botUsername ?? 'invest_dev_bot';
  const botId = opts.botId ?? (Number(opts.token.split(':')[0]) || 1);
  const chats = new Map<number, FakeChat>();
  const calls: FakeTelegramCall[] = [];
  let webhook: { url: string; secretToken: string | null; allowedUpdates: string[] | null } | null = null;
  let lastError: { date: number; message: string } | null = null;
  /** Updates not delivered yet (no webhook, or it failed), oldest first. */
  const pending: { update: Record<string, unknown>; delivery: { status: number | null } }[] = [];
  let nextUpdateId = 500_000 + Math.floor(Math.random() * 100_000);
  let nextMessageId = 1;
  const throttles: { count: number; retryAfterS: number; chatId?: number }[] = [];
  const failures: { count: number; status: number; method: string }[] = [];
  /** Changes whenever something a page shows changes (the page reloads on it). */
  let version = 0;

  const chatOf = (id: number, from: { username?: string; first_name?: string; language_code?: string } = {}): FakeChat => {
    let chat = chats.get(id);
    if (!chat) {
      chat = { id, username: from.username ?? null, first_name: from.first_name ?? `User ${id}`, language_code: from.language_code ?? 'ru', blocked: false, said: [], received: [] };
      chats.set(id, chat);
    }
    if (from.username !== undefined) chat.username = from.username || null;
    if (from.language_code) chat.language_code = from.language_code;
    return chat;
  };
  const botUser = { id: botId, is_bot: true, first_name: 'Invest', username: botUsername };

  /** Posts pending updates in order; stops at the first the webhook does not take (it stays pending). */
  let delivering: Promise<unknown> = Promise.resolve();
  const deliverPending = (): Promise<number | null> => {
    const run = delivering.then(async () => {
      let status: number | null = null;
      while (webhook && pending.length) {
        const next = pending[0]!;
        status = await post(webhook, next.update);
        next.delivery.status = status;
        version++;
        if (status === null || status < 200 || status >= 300) {
          lastError = { date: Math.floor(Date.now() / 1000), message: status === null ? 'Connection refused' : `Wrong response from the webhook: ${status}` };
          return status;
        }
        pending.shift();
      }
      return status;
    });
    delivering = run.catch(() => undefined);
    return run;
  };

  async function post(hook: NonNullable<typeof webhook>, update: Record<string, unknown>): Promise<number | null> {
    try {
      const res = await fetch(hook.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(hook.secretToken ? { 'x-telegram-bot-api-secret-token': hook.secretToken } : {}) },
        body: JSON.stringify(update),
        signal: AbortSignal.timeout(opts.webhookTimeoutMs ?? 10_000),
      });
      await res.body?.cancel();
      return res.status;
    } catch {
      return null;
    }
  }

  /** Queues an update and delivers what is pending; resolves with this update's webhook status (null: not delivered yet). */
  const enqueue = async (update: Record<string, unknown>, delivery: { status: number | null } = { status: null }): Promise<number | null> => {
    pending.push({ update, delivery });
    version++;
    // With an earlier update still failing, this one waits behind it (Telegram keeps their order).
    await deliverPending();
    return delivery.status;
  };

  const methods: Record<string, (p: Record<string, unknown>) => unknown> = {
    getme: () => botUser,
    setwebhook: (p) => {
      const url = String(p.url ?? '');
      if (url === '') {
        webhook = null;
        return true;
      }
      if (!/^https?:\/\//.test(url)) throw new ApiError(400, 'Bad Request: bad webhook: Webhook can be set up only on ports 80, 88, 443 or 8443');
      const secret = p.secret_token === undefined ? null : String(p.secret_token);
      if (secret !== null && !/^[A-Za-z0-9_-]{1,256}$/.test(secret)) throw new ApiError(400, 'Bad Request: secret token contains unallowed characters');
      const allowed = p.allowed_updates === undefined ? (webhook?.allowedUpdates ?? null) : ((typeof p.allowed_updates === 'string' ? safeJson(p.allowed_updates) : p.allowed_updates) as string[]);
      webhook = { url, secretToken: secret, allowedUpdates: allowed };
      if (p.drop_pending_updates === true || p.drop_pending_updates === 'true') pending.length = 0;
      lastError = null;
      version++;
      void deliverPending();
      return true;
    },
    deletewebhook: (p) => {
      webhook = null;
      if (p.drop_pending_updates === true || p.drop_pending_updates === 'true') pending.length = 0;
      version++;
      return true;
    },
    getwebhookinfo: () => ({
      url: webhook?.url ?? '',
      has_custom_certificate: false,
      pending_update_count: pending.length,
      max_connections: 40,
      ...(lastError ? { last_error_date: lastError.date, last_error_message: lastError.message } : {}),
      ...(webhook?.allowedUpdates ? { allowed_updates: webhook.allowedUpdates } : {}),
    }),
    answercallbackquery: (p) => {
      if (!p.callback_query_id) throw new ApiError(400, 'Bad Request: query is too old and response timeout expired or query ID is invalid');
      return true;
    },
    sendmessage: (p) => {
      const chatId = Number(p.chat_id);
      if (p.chat_id === undefined || p.chat_id === '') throw new ApiError(400, 'Bad Request: chat_id is empty');
      const raw = typeof p.text === 'string' ? p.text : '';
      if (!raw.trim()) throw new ApiError(400, 'Bad Request: message text is empty');
      const chat = chats.get(chatId);
      // A user who never wrote to the bot is unknown to it, as in Telegram.
      if (!chat) throw new ApiError(400, 'Bad Request: chat not found');
      const parseMode = p.parse_mode === undefined ? null : String(p.parse_mode);
      if (parseMode !== null && parseMode !== 'HTML') throw new ApiError(400, `Bad Request: unsupported parse_mode "${parseMode}" (this stand-in speaks HTML)`);
      const parsed = parseMode === 'HTML' ? parseTelegramHtml(raw) : { text: raw, tags: [] };
      if (parsed.text.length > TEXT_MAX) throw new ApiError(400, 'Bad Request: message is too long');
      const buttons = buttonsOf(p.reply_markup);
      const throttle = throttles.find((t) => t.count > 0 && (t.chatId === undefined || t.chatId === chatId));
      if (throttle) {
        throttle.count--;
        throw new ApiError(429, `Too Many Requests: retry after ${throttle.retryAfterS}`, { retry_after: throttle.retryAfterS });
      }
      if (chat.blocked) throw new ApiError(403, 'Forbidden: bot was blocked by the user');
      const message: FakeSentMessage = {
        message_id: nextMessageId++,
        chat_id: chatId,
        raw,
        text: parsed.text,
        parse_mode: parseMode,
        tags: parsed.tags,
        buttons,
        paid_broadcast: p.allow_paid_broadcast === true || p.allow_paid_broadcast === 'true',
        date: Math.floor(Date.now() / 1000),
        at: Date.now(),
      };
      chat.received.push(message);
      version++;
      return {
        message_id: message.message_id,
        from: botUser,
        chat: { id: chatId, type: 'private', first_name: chat.first_name, ...(chat.username ? { username: chat.username } : {}) },
        date: message.date,
        text: parsed.text,
        ...(buttons.length ? { reply_markup: { inline_keyboard: buttons } } : {}),
      };
    },
  };

  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };

  async function api(req: IncomingMessage, res: ServerResponse, url: URL, token: string, methodName: string): Promise<void> {
    if (token !== opts.token) return send(res, 401, { ok: false, error_code: 401, description: 'Unauthorized' });
    const method = methodName.toLowerCase();
    let params: Record<string, unknown> = {};
    const call: FakeTelegramCall = { method: methodName, params, status: 200, at: Date.now() };
    calls.push(call);
    try {
      params = await paramsOf(req, url);
      call.params = params;
      const handler = methods[method];
      if (!handler) throw new ApiError(404, 'Not Found: method not found');
      const failure = failures.find((f) => f.count > 0 && f.method === method);
      if (failure) {
        failure.count--;
        throw new ApiError(failure.status, failure.status >= 500 ? 'Internal Server Error' : 'Bad Request');
      }
      const result = handler(params);
      const description = method === 'setwebhook' ? (params.url ? 'Webhook was set' : 'Webhook was deleted') : method === 'deletewebhook' ? 'Webhook was deleted' : undefined;
      send(res, 200, { ok: true, result, ...(description ? { description } : {}) });
    } catch (err) {
      const e = err instanceof ApiError ? err : new ApiError(500, 'Internal Server Error');
      call.status = e.status;
      const retryAfter = e.parameters?.retry_after;
      send(res, e.status, { ok: false, error_code: e.status, description: e.description, ...(e.parameters ? { parameters: e.parameters } : {}) }, retryAfter !== undefined ? { 'retry-after': String(retryAfter) } : {});
    }
  }

  const userSays: FakeTelegram['userSays'] = (chatId, text, from = {}) => {
    const chat = chatOf(chatId, from);
    // A deep link pasted whole is what pressing Start on it sends.
    const deepLink = /^https:\/\/t\.me\/\w+\?start=([\w-]+)$/.exec(text.trim());
    const typed = deepLink ? `/start ${deepLink[1]}` : text;
    const update_id = nextUpdateId++;
    const said = { text: typed, update_id, status: null as number | null, at: Date.now() };
    chat.said.push(said);
    const command = /^\/\w+/.exec(typed);
    const user = { id: chatId, is_bot: false, first_name: chat.first_name, ...(chat.username ? { username: chat.username } : {}), language_code: chat.language_code };
    const update = {
      update_id,
      message: {
        message_id: nextMessageId++,
        from: user,
        chat: { id: chatId, type: from.type ?? 'private', first_name: chat.first_name, ...(chat.username ? { username: chat.username } : {}) },
        date: Math.floor(Date.now() / 1000),
        text: typed,
        ...(command ? { entities: [{ type: 'bot_command', offset: 0, length: command[0].length }] } : {}),
      },
    };
    return enqueue(update, said);
  };

  function page(): string {
    const rows = [...chats.values()]
      .map((c) => {
        const items = [
          ...c.said.map((s) => ({ at: s.at, who: 'user', html: `<span class="who">${escapeHtml(c.username ?? c.first_name)}:</span> ${escapeHtml(s.text)} <span class="meta">${s.status === null ? 'pending' : `webhook ${s.status}`}</span>` })),
          ...c.received.map((m) => ({
            at: m.at,
            who: 'bot',
            html: `<span class="who">bot:</span> <pre>${escapeHtml(m.text)}</pre>${m.buttons
              .flat()
              .map((b) => (b.url ? ` <a class="button" href="${escapeHtml(b.url)}" target="_blank" rel="noopener">${escapeHtml(b.text)}</a>` : ` <span class="button">${escapeHtml(b.text)}</span>`))
              .join('')}`,
          })),
        ];
        // Oldest first, by when each reached the stand-in.
        items.sort((a, b) => a.at - b.at);
        return `<section data-chat="${c.id}"><h2>Chat ${c.id}${c.username ? ` (@${escapeHtml(c.username)})` : ''}${c.blocked ? ' <span class="blocked">bot blocked</span>' : ''}</h2>
<form method="post" action="/demo/block"><input type="hidden" name="chat_id" value="${c.id}"><input type="hidden" name="blocked" value="${c.blocked ? 'false' : 'true'}"><button>${c.blocked ? 'Unblock the bot' : 'Block the bot'}</button></form>
<ul>${items.map((i) => `<li class="${i.who}">${i.html}</li>`).join('')}</ul></section>`;
      })
      .join('\n');
    return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Telegram stand-in: @${escapeHtml(botUsername)}</title>
<style>body{font:14px sans-serif;max-width:860px;margin:2em auto}pre{white-space:pre-wrap;display:inline-block;margin:0;font:inherit;vertical-align:top}
li{margin:.4em 0;list-style:none}li.bot{background:#eef5ff;padding:.3em}.who{font-weight:bold}.meta{color:#888;font-size:12px}.button{border:1px solid #4a90d9;border-radius:4px;padding:1px 6px;margin-left:6px}
.blocked{color:#b00;font-size:13px}section{border-top:1px solid #ddd;margin-top:1em}form.say input[name=text]{width:28em}</style></head><body>
<h1>Telegram Bot API stand-in: @${escapeHtml(botUsername)}</h1>
<p>Webhook: ${webhook ? escapeHtml(webhook.url) : '<em>not set</em>'}${pending.length ? ` · ${pending.length} update(s) pending` : ''}${lastError ? ` · last error: ${escapeHtml(lastError.message)}` : ''}</p>
<form class="say" method="post" action="/demo/say">
<label>Chat id <input name="chat_id" type="number" value="${[...chats.keys()].at(-1) ?? 100001}" required></label>
<label>Username <input name="username" value="anna"></label>
<label>Language <select name="language_code"><option>ru</option><option>en</option></select></label><br>
<label>Message <input name="text" placeholder="/start &lt;token&gt; (or paste the whole t.me link)" required autofocus></label>
<button>Send as the user</button></form>
${rows || '<p><em>No chats yet: write to the bot above.</em></p>'}
<script>
let seen = ${version};
setInterval(async () => {
  const v = await fetch('/demo/version').then((r) => r.json()).catch(() => seen);
  const typing = document.activeElement && document.activeElement.name === 'text' && document.activeElement.value;
  if (v !== seen && !typing) location.reload();
}, 1000);
</script></body></html>`;
  }

  async function demo(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    if (req.method === 'GET' && url.pathname === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(page());
      return;
    }
    if (req.method === 'GET' && url.pathname === '/demo/version') return send(res, 200, version);
    if (req.method === 'GET' && url.pathname === '/demo/chats') return send(res, 200, [...chats.values()]);
    if (req.method === 'POST' && (url.pathname === '/demo/say' || url.pathname === '/demo/block')) {
      const body = await readBody(req);
      const json = (req.headers['content-type'] ?? '').includes('json');
      const f = (json ? (safeJson(body) ?? {}) : Object.fromEntries(new URLSearchParams(body))) as Record<string, unknown>;
      const chatId = Number(f.chat_id);
      if (!Number.isSafeInteger(chatId) || chatId === 0) return send(res, 422, { error: 'chat_id must be an integer' });
      if (url.pathname === '/demo/say') {
        const text = String(f.text ?? '');
        if (!text.trim()) return send(res, 422, { error: 'text is empty' });
        const from = {
          ...(typeof f.username === 'string' ? { username: f.username } : {}),
          ...(typeof f.language_code === 'string' ? { language_code: f.language_code } : {}),
        };
        const status = await userSays(chatId, text, from);
        if (json) return send(res, 200, { webhook_status: status });
      } else {
        chatOf(chatId).blocked = String(f.blocked) !== 'false';
        version++;
        if (json) return send(res, 200, { blocked: chatOf(chatId).blocked });
      }
      res.writeHead(303, { location: '/' });
      res.end();
      return;
    }
    send(res, 404, { ok: false, error_code: 404, description: 'Not Found' });
  }

  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const m = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(url.pathname);
    (m ? api(req, res, url, decodeURIComponent(m[1]!), m[2]!) : demo(req, res, url)).catch(() => {
      if (!res.headersSent) send(res, 500, { ok: false, error_code: 500, description: 'Internal Server Error' });
    });
  });
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  const base = `http://${host}:${(server.address() as AddressInfo).port}`;

  return {
    url: base,
    pageUrl: `${base}/`,
    token: opts.token,
    botUsername,
    webhook: () => webhook,
    chats: () => [...chats.values()],
    messages: (chatId) => chats.get(chatId)?.received ?? [],
    calls,
    userSays,
    sendUpdate: (update) => enqueue({ update_id: nextUpdateId++, ...update }),
    block: (chatId, blocked = true) => {
      chatOf(chatId).blocked = blocked;
      version++;
    },
    throttleNext: (count, retryAfterS, chatId) => {
      throttles.push({ count, retryAfterS, ...(chatId !== undefined ? { chatId } : {}) });
    },
    failNext: (count, status = 502, method = 'sendMessage') => {
      failures.push({ count, status, method: method.toLowerCase() });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
