import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiError, describeError } from '../api/api-error';
import { type Answer, api, type BodyOf, fillPath } from '../api/client';
import { fetchEventStream, readEventStream } from '../api/event-stream';
import type { SseEvent } from '../api/sse-parser';
import { Link } from '../components/link';
import { AnswerSources } from '../components/answer-sources';
import { MarkdownText } from '../components/markdown-text';
import { RequireSession } from '../components/require-session';
import { showToast } from '../components/toast';
import { formatDateTime, formatNumber } from '../format/number-format';
import { useLocale } from '../i18n';
import { navigate, useRoute } from '../router';
import { useTr } from '../tr';

type Chat = Answer<'/api/ai-chat', 'get'>['data'][number];
type ChatWithMessages = NonNullable<Answer<'/api/ai-chat/{id}', 'get'>['data']>;
type Message = ChatWithMessages['messages'][number];
type Limit = NonNullable<Answer<'/api/ai-chat/limits', 'get'>['data']>[number];
type TokenBudget = Answer<'/api/ai-chat/limits', 'get'>['tokens'];
type SendBody = BodyOf<'/api/ai-chat/{id}/messages', 'post'>;

export default function ChatScreen() {
  return (
    <RequireSession>
      <ChatLayout />
    </RequireSession>
  );
}

function ChatLayout() {
  const t = useTr();
  const locale = useLocale();
  const route = useRoute();
  const chatId = /^\/chat\/([0-9a-f-]{36})$/i.exec(route.path)?.[1];
  const [chats, setChats] = useState<Chat[]>([]);
  const [limits, setLimits] = useState<Limit[]>([]);
  const [tokens, setTokens] = useState<TokenBudget | null>(null);
  const [error, setError] = useState<unknown>(null);

  const loadChats = useCallback(() => {
    api.get('/api/ai-chat', { query: { per_page: '50' } }).then((r) => setChats(r.data), setError);
    api.get('/api/ai-chat/limits').then(
      (r) => {
        setLimits(r.data ?? []);
        setTokens(r.tokens ?? null);
      },
      () => undefined,
    );
  }, []);
  useEffect(loadChats, [loadChats]);

  const open = async (contextType: 'support' | 'portfolio_health', contextId?: number) => {
    try {
      const r = await api.post('/api/ai-chat', { body: { context_type: contextType, ...(contextId ? { context_id: contextId } : {}) } });
      loadChats();
      navigate(`/chat/${r.data!.id}`);
    } catch (err) {
      showToast(describeError(err, locale), 'error');
    }
  };

  // `/chat?portfolio=5` (from a portfolio): opens a health chat about it.
  const portfolioParam = new URLSearchParams(route.search).get('portfolio');
  const opened = useRef(false);
  useEffect(() => {
    if (!chatId && portfolioParam && /^\d+$/.test(portfolioParam) && !opened.current) {
      opened.current = true;
      void open('portfolio_health', Number(portfolioParam));
    }
  }, [chatId, portfolioParam]);

  return (
    <section data-testid="chat">
      <h1>{t('Чат с ассистентом', 'Assistant chat')}</h1>
      {error ? (
        <p className="form-error" role="alert">
          {describeError(error, locale)}
        </p>
      ) : null}
      <div className="chat">
        <aside className="panel">
          <button type="button" data-testid="chat-new-support" onClick={() => void open('support')}>
            + {t('Поддержка', 'Support')}
          </button>{' '}
          <PortfolioChatButton onOpen={(id) => void open('portfolio_health', id)} />
          <ul className="list" data-testid="chat-list">
            {chats.map((c) => (
              <li key={c.id} data-testid="chat-item" className={c.id === chatId ? 'unread' : ''}>
                <Link to={`/chat/${c.id}`}>{c.title ?? (c.context_type === 'support' ? t('Поддержка', 'Support') : t('Здоровье портфеля', 'Portfolio health'))}</Link>
                <span className="muted small">{formatDateTime(c.updated_at, locale)}</span>
              </li>
            ))}
          </ul>
          <div className="muted small" data-testid="chat-limits">
            {limits.map((l) => (
              <div key={l.context_type}>
                {l.context_type === 'support' ? t('Поддержка', 'Support') : t('Здоровье портфеля', 'Portfolio health')}:{' '}
                {l.remaining === null ? t('без ограничений', 'unlimited') : t(`осталось ${l.remaining} из ${l.limit}`, `${l.remaining} of ${l.limit} left`)}
              </div>
            ))}
            {tokens && tokens.limit !== null && tokens.remaining !== null ? (
              <div data-testid="chat-token-budget">
                {t(
                  `Токены на сегодня: осталось ${formatNumber(tokens.remaining, locale, 0)} из ${formatNumber(tokens.limit, locale, 0)}`,
                  `Tokens today: ${formatNumber(tokens.remaining, locale, 0)} of ${formatNumber(tokens.limit, locale, 0)} left`,
                )}
              </div>
            ) : null}
          </div>
        </aside>
        <div className="panel">{chatId ? <Conversation key={chatId} chatId={chatId} onChanged={loadChats} /> : <p className="muted">{t('Выберите или начните чат.', 'Pick or start a chat.')}</p>}</div>
      </div>
    </section>
  );
}

function PortfolioChatButton({ onOpen }: { onOpen: (id: number) => void }) {
  const t = useTr();
  const [portfolios, setPortfolios] = useState<Answer<'/api/portfolios', 'get'>['data']>([]);
  useEffect(() => {
    api.get('/api/portfolios').then((r) => setPortfolios(r.data), () => undefined);
  }, []);
  if (!portfolios.length) return null;
  return (
    <select data-testid="chat-new-portfolio" value="" onChange={(e) => e.target.value && onOpen(Number(e.target.value))} aria-label={t('Чат о портфеле', 'Portfolio chat')}>
      <option value="">+ {t('Портфель…', 'Portfolio…')}</option>
      {portfolios.map((p) => (
        <option key={p.id} value={p.id}>
          {p.name}
        </option>
      ))}
    </select>
  );
}

/** What the stream of one answer has produced so far. */
interface LiveAnswer {
  messageId: string | null;
  content: string;
  status: 'streaming' | Message['status'];
  error?: string;
}

function Conversation({ chatId, onChanged }: { chatId: string; onChanged: () => void }) {
  const t = useTr();
  const locale = useLocale();
  const [chat, setChat] = useState<ChatWithMessages | null>(null);
  const [live, setLive] = useState<LiveAnswer | null>(null);
  const [text, setText] = useState('');
  const [error, setError] = useState<unknown>(null);
  const abort = useRef<AbortController | null>(null);

  const load = useCallback(async () => {
    const r = await api.get('/api/ai-chat/{id}', { path: { id: chatId } });
    setChat(r.data ?? null);
    return r.data ?? null;
  }, [chatId]);

  /** Applies one stream event to the live answer; resolves the final status. */
  const apply = (e: SseEvent) => {
    let data: { message_id?: string; content?: string; status?: Message['status']; message?: string } = {};
    try {
      data = JSON.parse(e.data) as typeof data;
    } catch {
      return;
    }
    setLive((cur) => {
      const base = cur ?? { messageId: null, content: '', status: 'streaming' as const };
      if (e.event === 'start') return { ...base, messageId: data.message_id ?? base.messageId };
      if (e.event === 'chunk') return { ...base, content: base.content + (data.content ?? '') };
      if (e.event === 'done') return { ...base, status: data.status ?? 'complete' };
      if (e.event === 'error') return { ...base, status: 'failed', error: data.message ?? 'error' };
      return base;
    });
  };

  /** Resumes the chat's answer that is still being written, if any (see `follow`). */
  const resume = useRef<(c: ChatWithMessages | null, attempt: number) => void>(() => undefined);

  /**
   * Reads a stream to its end, then shows the stored chat (the answer as saved, with its id for rating). A
   * connection dropped mid-answer does not stop the answer on the server: it is picked up again (a few times).
   */
  const follow = useCallback(
    async (response: Promise<Response>, controller: AbortController, attempt = 0) => {
      try {
        await readEventStream(await response, apply);
      } catch (err) {
        if (!controller.signal.aborted) setError(err);
      } finally {
        if (abort.current === controller) abort.current = null;
        if (!controller.signal.aborted) {
          const c = await load().catch(() => null);
          setLive(null);
          onChanged();
          if (attempt < 3) resume.current(c, attempt + 1);
        }
      }
    },
    [load, onChanged],
  );

  resume.current = (c, attempt) => {
    const streaming = c?.messages.findLast((m) => m.role === 'assistant' && m.status === 'streaming');
    if (!streaming || abort.current) return;
    const controller = new AbortController();
    abort.current = controller;
    setError(null);
    // The gateway replays the answer's events from the start, then continues live.
    setLive({ messageId: streaming.id, content: '', status: 'streaming' });
    void follow(fetchEventStream(fillPath('/api/ai-chat/{id}/messages/{messageId}/stream', { id: chatId, messageId: streaming.id }), { signal: controller.signal }), controller, attempt);
  };

  // Opening (or reloading) the page while an answer is being written resumes it.
  useEffect(() => {
    let cancelled = false;
    load()
      .then((c) => {
        if (!cancelled) resume.current(c, 0);
      })
      .catch(setError);
    return () => {
      cancelled = true;
      abort.current?.abort();
      abort.current = null;
    };
  }, [chatId, load]);

  const send = async () => {
    const message = text.trim();
    if (!message || live) return;
    setError(null);
    const body: SendBody = { message, context_data: chat?.context_type === 'portfolio_health' && chat.context_id ? await healthContext(Number(chat.context_id)) : null };
    const controller = new AbortController();
    abort.current = controller;
    setText('');
    const local = optimisticUserMessage(chatId, message);
    setChat((c) => (c ? { ...c, messages: [...c.messages, local] } : c));
    setLive({ messageId: null, content: '', status: 'streaming' });
    // A send refused before its answer starts (the daily limit, no connection, a server error) stored nothing:
    // the question goes back into the box (unless something new was typed meanwhile) to be sent again.
    const refused = (err: unknown) => {
      if (abort.current === controller) abort.current = null;
      setLive(null);
      setChat((c) => (c ? { ...c, messages: c.messages.filter((m) => m.id !== local.id) } : c));
      setText((cur) => cur || message);
      setError(err);
      onChanged();
    };
    let response: Response;
    try {
      response = await fetchEventStream(fillPath('/api/ai-chat/{id}/messages', { id: chatId }), { signal: controller.signal, method: 'POST', body });
    } catch (err) {
      if (!controller.signal.aborted) refused(err);
      return;
    }
    if (!response.ok) {
      // readEventStream turns the refusal into its ApiError (429 with `limit`, 5xx, ...).
      await readEventStream(response, apply).catch(refused);
      return;
    }
    await follow(Promise.resolve(response), controller);
  };

  const stop = async () => {
    if (!live?.messageId) return;
    try {
      await api.post('/api/ai-chat/{id}/messages/{messageId}/stop', { path: { id: chatId, messageId: live.messageId } });
    } catch (err) {
      showToast(describeError(err, locale), 'error');
    }
  };

  const rate = async (m: Message, rating: 'like' | 'dislike') => {
    try {
      await api.post('/api/ai-chat/{id}/messages/{messageId}/rating', { path: { id: chatId, messageId: m.id }, body: { rating } });
      await load();
    } catch (err) {
      showToast(describeError(err, locale), 'error');
    }
  };

  const messages = (chat?.messages ?? []).filter((m) => !(live && m.role === 'assistant' && m.id === live.messageId));
  return (
    <div data-testid="chat-conversation">
      <h2>{chat?.title ?? (chat?.context_type === 'portfolio_health' ? t('Здоровье портфеля', 'Portfolio health') : t('Поддержка', 'Support'))}</h2>
      <div className="messages" data-testid="chat-messages">
        {messages.map((m) => (
          <div key={m.id} className={`msg msg-${m.role}`} data-testid={m.role === 'assistant' ? 'chat-answer' : 'chat-question'} data-status={m.status} data-message-id={m.id}>
            {m.role === 'assistant' && m.content ? <MarkdownText text={m.content} testId="chat-answer-text" /> : m.content || (m.status === 'failed' ? t('Ассистент не смог ответить.', 'The assistant could not answer.') : '')}
            {m.role === 'assistant' && m.status === 'stopped' && <div className="muted small">{t('(остановлено)', '(stopped)')}</div>}
            {m.role === 'assistant' && <AnswerSources sources={m.sources} />}
            {m.role === 'assistant' && (m.status === 'complete' || m.status === 'stopped') && (
              <div className="small" data-testid="chat-rating" data-rating={m.rating ?? ''}>
                <CopyButton text={m.content} />{' '}
                <span className="muted">{t('Ответ помог?', 'Was this answer helpful?')}</span>{' '}
                <button type="button" className="linklike" aria-pressed={m.rating === 'like'} data-testid="chat-rate-like" onClick={() => void rate(m, 'like')}>
                  {m.rating === 'like' ? '✓ ' : ''}{t('Да', 'Yes')}
                </button>{' '}
                <button type="button" className="linklike" aria-pressed={m.rating === 'dislike'} data-testid="chat-rate-dislike" onClick={() => void rate(m, 'dislike')}>
                  {m.rating === 'dislike' ? '✓ ' : ''}{t('Нет', 'No')}
                </button>
              </div>
            )}
          </div>
        ))}
        {live && (
          <div className="msg msg-assistant" data-testid="chat-answer" data-status={live.status} data-live="true" aria-live="polite">
            {live.content ? <MarkdownText text={live.content} testId="chat-answer-text" /> : '…'}
            {live.error && <div className="form-error">{live.error}</div>}
          </div>
        )}
      </div>
      {error ? (
        <p className="form-error" role="alert" data-testid="chat-error">
          {describeError(error, locale)}
          {error instanceof ApiError && error.kind === 'rate_limited' ? (
            <>
              {' '}
              <Link to="/subscription">{t('Тарифы', 'Plans')}</Link>
            </>
          ) : null}
        </p>
      ) : null}
      <form
        className="filters"
        data-testid="chat-form"
        onSubmit={(e) => {
          e.preventDefault();
          void send();
        }}
      >
        <textarea
          data-testid="chat-input"
          rows={2}
          style={{ flex: '1 1 240px' }}
          value={text}
          maxLength={4000}
          onChange={(e) => setText(e.target.value)}
          // Enter sends, Shift+Enter is a new line; not while an input method is composing (Enter picks its word).
          onKeyDown={(e) => {
            if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
              e.preventDefault();
              void send();
            }
          }}
          placeholder={t('Ваш вопрос (Enter — отправить, Shift+Enter — новая строка)', 'Your question (Enter sends, Shift+Enter for a new line)')}
          aria-label={t('Ваш вопрос', 'Your question')}
        />
        {live ? (
          <button type="button" className="danger" data-testid="chat-stop" onClick={() => void stop()} disabled={!live.messageId}>
            ■ {t('Стоп', 'Stop')}
          </button>
        ) : (
          <button type="submit" data-testid="chat-send" disabled={!text.trim()}>
            {t('Отправить', 'Send')}
          </button>
        )}
      </form>
    </div>
  );
}

/** Copies an answer's text (its Markdown) and says so for a moment. */
function CopyButton({ text }: { text: string }) {
  const t = useTr();
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => {
    if (state === 'idle') return;
    const timer = setTimeout(() => setState('idle'), 2000);
    return () => clearTimeout(timer);
  }, [state]);
  const copy = () => {
    navigator.clipboard.writeText(text).then(
      () => setState('copied'),
      () => setState('failed'),
    );
  };
  return (
    <button type="button" className="linklike" data-testid="chat-copy" data-state={state} onClick={copy}>
      {state === 'copied' ? t('Скопировано', 'Copied') : state === 'failed' ? t('Не удалось скопировать', 'Could not copy') : t('Копировать', 'Copy')}
    </button>
  );
}

function optimisticUserMessage(chatId: string, content: string): Message {
  const now = new Date().toISOString();
  return { id: `local-${now}`, ai_chat_id: chatId, role: 'user', content, status: 'complete', rating: null, rating_comment: null, model: null, usage: null, latency_ms: null, created_at: now, completed_at: now };
}

/** The portfolio's health metrics as `context_data` (numbers only), or null when they cannot be read. */
async function healthContext(portfolioId: number): Promise<Record<string, unknown> | null> {
  try {
    const s = (await api.get('/api/portfolios/{id}/statistics', { path: { id: portfolioId } })).data;
    if (!s) return null;
    const h = s.health;
    return {
      diversification_score: h.diversificationScore,
      concentration_score: h.concentrationScore,
      effective_positions: h.effectivePositions,
      largest_position_weight: h.largestPositionWeight,
      positions_count: s.totals.positionsCount,
      total_income_percentage: s.totals.totalIncomePercentage,
    };
  } catch {
    return null;
  }
}
