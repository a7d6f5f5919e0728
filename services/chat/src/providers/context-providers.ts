import { ServiceError } from '@invest/platform/rpc/service-error';
import type { ContextProvider } from './context-provider.js';
import { portfolioHealthProvider } from './portfolio-health.provider.js';
import { supportProvider } from './support.provider.js';

/** Every context type the chat serves. A new type: its provider file, then one line here. */
export const CONTEXT_PROVIDERS: readonly ContextProvider[] = [portfolioHealthProvider as ContextProvider, supportProvider as ContextProvider];

export class ContextProviders {
  private readonly byType: ReadonlyMap<string, ContextProvider>;
  constructor(
    providers: readonly ContextProvider[] = CONTEXT_PROVIDERS,
    /** Model overrides by context type; `*` for all. */
    private readonly models: Record<string, string> = {},
  ) {
    this.byType = new Map(providers.map((p) => [p.type, p]));
  }

  all(): ContextProvider[] {
    return [...this.byType.values()];
  }

  /** The provider of a context type; 422 naming `context_type` when there is none. */
  require(type: string): ContextProvider {
    const p = this.byType.get(type);
    if (!p) throw ServiceError.validation({ context_type: [`The selected context type is invalid. Known: ${[...this.byType.keys()].join(', ')}.`] });
    return p;
  }

  modelFor(p: ContextProvider): string {
    return this.models[p.type] ?? this.models['*'] ?? p.model;
  }
}
