/**
 * A rough token count, the same everywhere in the course (the scripted model's usage, s11's
 * compaction): one token per four characters. Good enough to decide when a history is too long;
 * the API's own count (`messages.countTokens`) is exact.
 */
export function estimateTokens(value: unknown): number {
  const text = typeof value === "string" ? value : JSON.stringify(value ?? "");
  return Math.ceil(text.length / 4);
}
