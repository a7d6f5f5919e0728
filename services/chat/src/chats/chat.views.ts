import type { ChatMessageView, ChatSource, ChatUsage, ChatView } from '@invest/contracts';

export interface ChatRow {
  id: string;
  user_id: string;
  context_type: string;
  context_id: string | null;
  title: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface MessageRow {
  id: string;
  chat_id: string;
  role: 'user' | 'assistant';
  content: string;
  status: ChatMessageView['status'];
  rating: 'like' | 'dislike' | null;
  rating_comment: string | null;
  model: string | null;
  usage: ChatUsage | null;
  latency_ms: number | null;
  created_at: Date;
  completed_at: Date | null;
  sources: ChatSource[] | null;
}

export const MESSAGE_COLUMNS = 'id, chat_id, role, content, status, rating, rating_comment, model, usage, latency_ms, created_at, completed_at, sources';
export const CHAT_COLUMNS = 'id, user_id, context_type, context_id, title, created_at, updated_at';

const iso = (d: Date | string) => new Date(d).toISOString();

export function chatView(r: ChatRow): ChatView {
  return { id: r.id, user_id: r.user_id, context_type: r.context_type, context_id: r.context_id, title: r.title, created_at: iso(r.created_at), updated_at: iso(r.updated_at) };
}

export function messageView(r: MessageRow): ChatMessageView {
  return {
    id: r.id,
    ai_chat_id: r.chat_id,
    role: r.role,
    content: r.content,
    status: r.status,
    rating: r.rating,
    rating_comment: r.rating_comment,
    model: r.model,
    usage: r.usage,
    latency_ms: r.latency_ms,
    created_at: iso(r.created_at),
    completed_at: r.completed_at ? iso(r.completed_at) : null,
    sources: r.sources ?? [],
  };
}
