/** Thinking-block signatures: an HMAC of the thinking text, so a modified block is detected. */
import { createHmac, timingSafeEqual } from "node:crypto";

export function signThinking(secret: string, thinking: string): string {
  return "sig_" + createHmac("sha256", secret).update(thinking).digest("base64url");
}

export function verifySignature(secret: string, thinking: string, signature: string): boolean {
  const expected = Buffer.from(signThinking(secret, thinking));
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
