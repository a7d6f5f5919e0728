import { randomUUID } from 'node:crypto';
import { type ChatSource, ErrorCode } from '@invest/contracts';
import { currentContext, runWithContext } from '@invest/platform/context/request-context';
import type { Logger } from '@invest/platform/logging/logger';
import type { RpcClient } from '@invest/platform/rpc/rpc-client';
import { ServiceError } from '@invest/platform/rpc/service-error';
import type { ModelToolCall, ModelToolDefinition } from '../generation/chat-model.js';
import { CHAT_TOOLS, type ChatTool } from './chat-tools.js';

/** What one tool call gives back: the tool message's content, and the source to list when it read data. */
export interface ToolOutcome {
  content: string;
  source?: ChatSource;
}

/** A tool result longer than this is refused (a model's context is not the place for megabytes). */
export const MAX_TOOL_RESULT_CHARS = 32_000;

const refusal = (error: string, message: string, details?: unknown): ToolOutcome => ({ content: JSON.stringify({ error, message, ...(details ? { details } : {}) }) });

export type ParsedCall = { ok: true; tool: ChatTool; args: unknown } | { ok: false; outcome: ToolOutcome };

/** Pure: the tool a call names and its arguments parsed with the tool's schema, or the refusal the model gets. */
export function parseToolCall(call: Pick<ModelToolCall, 'name' | 'arguments'>, tools: readonly ChatTool<never>[] = CHAT_TOOLS): ParsedCall {
  const tool = tools.find((t) => t.name === call.name) as ChatTool | undefined;
  if (!tool) return { ok: false, outcome: refusal('unknown_tool', `There is no tool named ${JSON.stringify(call.name.slice(0, 64))}.`) };
  let raw: unknown;
  try {
    raw = call.arguments.trim() === '' ? {} : JSON.parse(call.arguments);
  } catch {
    return { ok: false, outcome: refusal('invalid_arguments', 'The arguments are not JSON.') };
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return { ok: false, outcome: refusal('invalid_arguments', 'The arguments must be a JSON object.') };
  const parsed = tool.args.safeParse(raw);
  if (!parsed.success) {
    const details = parsed.error.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message));
    return { ok: false, outcome: refusal('invalid_arguments', 'The arguments do not fit the tool.', details) };
  }
  return { ok: true, tool, args: parsed.data };
}

/**
 * Runs the model's tool calls for the user the answer is for. Every call is an RPC as that user (no other user id
 * is ever taken from the model), so the owning service refuses what the user does not own, as it refuses the API.
 * A refusal or a failure becomes a tool result saying so (the model reads it and answers), never an exception.
 */
export class ToolExecutor {
  constructor(
    private readonly deps: { rpc: RpcClient; logger: Logger; clock: () => Date; marketTz: string; tools?: readonly ChatTool<never>[] },
  ) {}

  private get tools(): readonly ChatTool<never>[] {
    return this.deps.tools ?? CHAT_TOOLS;
  }

  /** The tools as the model is offered them (OpenAI function tools). */
  definitions(): ModelToolDefinition[] {
    return this.tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } }));
  }

  async execute(userId: string, call: ModelToolCall): Promise<ToolOutcome> {
    const parsed = parseToolCall(call, this.tools);
    if (!parsed.ok) return parsed.outcome;
    const { tool, args } = parsed;
    const today = new Intl.DateTimeFormat('en-CA', { timeZone: this.deps.marketTz, year: 'numeric', month: '2-digit', day: '2-digit' }).format(this.deps.clock());
    try {
      // The answer runs after the send's request returned: its deadline is gone, so the calls run in a context of
      // their own (same correlation id for the logs, the answering user as the acting one).
      const result = await runWithContext({ correlationId: currentContext()?.correlationId ?? randomUUID(), userId }, () => tool.run(args, { rpc: this.deps.rpc, userId, today }));
      const content = JSON.stringify(result);
      if (content.length > MAX_TOOL_RESULT_CHARS) return refusal('too_large', 'The result is too large; ask for less.');
      return { content, source: { tool: tool.name, arguments: args as Record<string, unknown>, label: tool.label(args) } };
    } catch (err) {
      if (err instanceof ServiceError && err.code === ErrorCode.NotFound) return refusal('not_found', 'Not found.');
      if (err instanceof ServiceError && err.code === ErrorCode.Validation) return refusal('invalid_arguments', 'The service refused the arguments.', err.errors);
      this.deps.logger.warn({ err, tool: tool.name }, 'chat: a tool call failed');
      return refusal('unavailable', 'The data could not be read right now.');
    }
  }
}
