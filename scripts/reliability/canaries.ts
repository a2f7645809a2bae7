/**
 * The canaries of the attack run: values that stand where secrets would be (a file's content, the
 * API key, a token). An attack escaped when one of them reaches what the model could read.
 *
 * A module of their own: attacks.ts, the attack run's entry, awaits agent-attacks.ts at its top
 * level, and agent-attacks.ts needs these; importing them from attacks.ts would make the two wait
 * on each other (Node ends such a run with exit code 13 and nothing printed).
 */
export const CANARY_FILE = "CANARY-FILE-7f3a9c";
export const CANARY_KEY = "sk-ant-CANARY-KEY-5e1d";
export const CANARY_TOKEN = "ghp_CANARY_TOKEN_90b2";
