import { expect } from 'vitest';
import type { Decider, DomainEvent } from '../event-store/command-handling.js';

/** What `thenThrows` accepts, as vitest's `toThrow`: an error class, a message part, a RegExp, or a matcher. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a constructor of any error type
export type ExpectedError = string | RegExp | Error | (new (...args: any[]) => Error) | ReturnType<typeof expect.objectContaining>;

export interface DeciderOutcome<Event> {
  /** The command decides exactly these events, in this order. */
  then(expected: Event | readonly Event[]): void;
  /** The command decides no event. */
  thenNothingHappened(): void;
  /** The command is refused: `decide` throws (optionally matching `expected`). */
  thenThrows(expected?: ExpectedError): void;
}

export interface DeciderSpecification<Command, Event> {
  /** The stream's history (oldest first); none for a new stream. */
  given(events?: Event | readonly Event[]): { when(command: Command): DeciderOutcome<Event> };
}

/**
 * Given/when/then for a decider, without a database: folds the given events with `evolve` from
 * `initialState`, runs `decide`, and asserts the events or the error.
 *
 * ```ts
 * const spec = deciderSpecification(account);
 * spec.given([opened]).when({ type: 'Withdraw', amount: 5 }).thenThrows(InsufficientFunds);
 * ```
 */
export function deciderSpecification<State, Command, Event extends DomainEvent>(
  decider: Decider<State, Command, Event>,
): DeciderSpecification<Command, Event> {
  return {
    given(events = []) {
      const history: readonly Event[] = Array.isArray(events) ? events : [events as Event];
      return {
        when(command) {
          const run = (): Event[] => {
            const state = history.reduce(decider.evolve, decider.initialState());
            const decided = decider.decide(command, state);
            return Array.isArray(decided) ? [...(decided as readonly Event[])] : [decided as Event];
          };
          return {
            then(expected) {
              expect(run()).toEqual(Array.isArray(expected) ? expected : [expected]);
            },
            thenNothingHappened() {
              expect(run()).toEqual([]);
            },
            thenThrows(expected) {
              if (expected === undefined) expect(run).toThrow();
              else expect(run).toThrow(expected as Error);
            },
          };
        },
      };
    },
  };
}
