/**
 * The rules of a password a person chooses (docs/accounts.md, "Passwords"), checked before
 * sending where the page can: the length and the username. Whether it is one of the 10,000
 * most common is the daemon's to say (400 `weak_password`, its message naming the rule).
 */
export const PASSWORD_RULE = 'At least 8 characters, not your username, and not a common password.';

export function passwordProblem(password: string, username: string): string | null {
  if (password.length < 8) return 'The password must be at least 8 characters long.';
  if (username && password.toLowerCase() === username.toLowerCase()) return 'The password must not be your username.';
  return null;
}
