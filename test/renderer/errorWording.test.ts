/** Messages shown to people never carry API wording (issue 10, item 15h). */
import { describe, expect, it } from 'vitest';
import { ERROR_STATUS } from '../../shared/errors';
import { ApiError, errorMessage } from '../../renderer/api/client';
import { LANGUAGES, loadAllResources } from '../../renderer/i18n';

describe('errorMessage', () => {
  it('does not tell a person to "pass overwrite=true"', () => {
    const message = errorMessage(
      new ApiError(409, 'file_exists', 'A file with that name already exists (pass overwrite=true to replace it)'),
    );
    expect(message).toBe('A file with that name already exists.');
  });

  it('names the field instead of the API parameter', () => {
    expect(errorMessage(new ApiError(400, 'invalid_parameter', 'Parameter newname must not end with a dot or a space'))).toBe(
      'The new name must not end with a dot or a space',
    );
    expect(errorMessage(new ApiError(400, 'missing_parameter', 'Missing parameter: newemail'))).toBe('The e-mail address is missing.');
  });

  it('words a WebDAV client’s lock for people, not by its lock token', () => {
    expect(errorMessage(new ApiError(423, 'locked', 'The resource is locked; send its lock token in an If header'))).toBe(
      'This item is locked by a WebDAV client. Try again once it is unlocked.',
    );
  });

  it('keeps a daemon message that is already written for people', () => {
    expect(errorMessage(new ApiError(409, 'role_in_use', 'Role is still assigned to 2 users'))).toBe('Role is still assigned to 2 users');
    expect(errorMessage(new ApiError(404, 'file_not_found', 'File not found'))).toBe('File not found');
  });

  it('words the accounts’ codes for people, with the wait of a 429', () => {
    expect(errorMessage(new ApiError(429, 'too_many_attempts', 'Too many failed sign-ins', 45))).toBe(
      'Too many failed sign-ins. Try again in 45 seconds.',
    );
    expect(errorMessage(new ApiError(429, 'too_many_attempts', 'Too many failed sign-ins', 61))).toBe(
      'Too many failed sign-ins. Try again in 2 minutes.',
    );
    expect(errorMessage(new ApiError(401, 'invalid_credentials', 'Invalid credentials'))).toBe('The username or password is wrong.');
    expect(errorMessage(new ApiError(403, 'admin_only', 'Admins only'))).toBe('Only an administrator can do that.');
    expect(errorMessage(new ApiError(400, 'weak_password', 'The password must not be the username'))).toBe(
      'The password must not be the username',
    );
  });
});

const resources = await loadAllResources();

describe('the codes the UI words', () => {
  // `unreachable` is the client's own: no answer came from the daemon at all.
  const sent = new Set<string>([...Object.keys(ERROR_STATUS), 'unreachable']);

  for (const { code: language } of LANGUAGES) {
    it(`${language} words only codes the daemon sends (or the client makes)`, () => {
      const errors = resources[language].errors as Record<string, Record<string, string>>;
      const worded = [...Object.keys(errors.code), ...Object.keys(errors.daemon)];
      expect(worded.filter((code) => !sent.has(code))).toEqual([]);
    });
  }
});
