/** A JSON body as an object: anything else (array, string, no body) validates as an empty object, so every missing field is named. */
export function bodyObject(body: unknown): Record<string, unknown> {
  return body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
}
