/**
 * Every page of a list a service answers in parts, asked one after another: each page names where the next starts
 * (an id or sequence that only grows; `nextOf` gives it), and the last names none. A service of an earlier release
 * names none at all: its one page is the list. A page that names a start not past its own is refused (no loop).
 */
export async function allPages<P>(what: string, ask: (after: number | undefined) => Promise<P>, nextOf: (page: P) => number | null | undefined): Promise<P[]> {
  const pages: P[] = [];
  let after: number | undefined;
  for (;;) {
    const page = await ask(after);
    pages.push(page);
    const next = nextOf(page) ?? undefined;
    if (next === undefined) return pages;
    if (after !== undefined && next <= after) throw new Error(`${what} went back from ${after} to ${next}`);
    after = next;
  }
}
