/** A chat's title from its first message: the first line, white space collapsed, at most 60 characters at a word end. */
export function titleFromMessage(message: string, max = 60): string {
  const line = (message.split('\n').find((l) => l.trim()) ?? '').replace(/\s+/g, ' ').trim();
  if (line.length <= max) return line;
  // Never half of a surrogate pair (an emoji): it would be stored as U+FFFD.
  const cut = line.slice(0, /[\uD800-\uDBFF]/.test(line[max - 2] ?? '') ? max - 2 : max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}
