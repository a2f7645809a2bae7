export function send(to, body) {
  // TODO: retry when the mail server is busy
  return { to, body };
}
