/** The service's settings, from the environment. */
export function settings(env = process.env) {
  return {
    port: Number(env.SERVICE_PORT ?? 8080),
    host: env.SERVICE_HOST ?? "127.0.0.1",
  };
}
