/** The version the release workflow bumps. */
export const VERSION = "2.4.0";
