export function login(user, password) {
  // TODO: rate-limit failed logins per user
  return user.password === password;
}
