/** Messages shown to people never carry API wording (issue 10, item 15h). */
import { describe, expect, it } from 'vitest';
import { ApiError, errorMessage } from '../../renderer/api/client';

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
