/** Error codes of the HTTP API and the status each one maps to. */
export const ERROR_STATUS = {
  bad_request: 400,
  /** A password a user chose breaks a rule (length, the username, a common password). */
  weak_password: 400,
  /**
   * A one-time link's token (a password reset, an e-mail verification) that is unknown, used or
   * expired. 400; the verification link answers it 404 instead, as a page that is gone
   * (daemon/errors.ts, invalidToken).
   */
  invalid_token: 400,
  /** A password in the query string of an /api/auth/* request (it would end up in logs and history). */
  password_in_query: 400,
  missing_parameter: 400,
  invalid_parameter: 400,
  duplicate_parameter: 400,
  unauthorized: 401,
  /** A wrong password or an unknown user at sign-in: one answer for both. */
  invalid_credentials: 401,
  /** A share link that asks for a password, opened without having given it (docs/sharing.md). */
  share_password_required: 401,
  forbidden: 403,
  forbidden_host: 403,
  insufficient_scope: 403,
  /** A row for admins only, called by someone else. */
  admin_only: 403,
  /** A row for the machine's admin key itself (keys.rotate), called by anyone else, admins included. */
  admin_key_only: 403,
  /** A change to one's own recovery e-mail or password made with a key: it needs a signed-in session. */
  session_required: 403,
  /** A change to one's own recovery e-mail or password without the current password. */
  password_required: 403,
  registration_closed: 403,
  /** NIMBUS_REQUIRE_VERIFIED=1: an unverified user may not upload or share. */
  email_not_verified: 403,
  /** A cookie-authenticated change (or a sign-in) from another site's page. */
  cross_site_request: 403,
  not_found: 404,
  user_not_found: 404,
  role_not_found: 404,
  folder_not_found: 404,
  file_not_found: 404,
  key_not_found: 404,
  share_not_found: 404,
  session_not_found: 404,
  trash_item_not_found: 404,
  /** A file version id that names none of that file's versions (docs/versions.md). */
  version_not_found: 404,
  route_not_found: 404,
  /** A resumable (tus) upload that does not exist, or is another user's (docs/uploads.md). */
  upload_not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  conflict: 409,
  user_exists: 409,
  role_exists: 409,
  folder_exists: 409,
  file_exists: 409,
  /** Another user, folder or file has the same name but for case: one entry on a case-insensitive disk. */
  name_case_conflict: 409,
  /** Self-registration of a name that something in storage already answers to (an orphan's files, a deletion's leftovers). */
  name_unavailable: 409,
  key_exists: 409,
  already_shared: 409,
  role_in_use: 409,
  role_builtin: 409,
  key_builtin: 409,
  /** A WebDAV lock token that names no lock on the resource (UNLOCK 409; a LOCK refresh answers it 412). */
  lock_token_mismatch: 409,
  /** A tus PATCH whose Upload-Offset is not where the upload stands (docs/uploads.md). */
  upload_offset_mismatch: 409,
  /** A resumable upload left unfinished past its expiry: its bytes are gone (docs/uploads.md). */
  upload_expired: 410,
  /** A download whose If-Match or If-Unmodified-Since names bytes the file no longer has. */
  precondition_failed: 412,
  /** A tus request whose Tus-Resumable is not a version this server speaks (1.0.0). */
  tus_version_unsupported: 412,
  payload_too_large: 413,
  /** A WebDAV dead property over 64 KiB, or a resource's properties over 1 MiB together (docs/webdav.md). */
  property_too_large: 413,
  cannot_preview: 415,
  /** An upload whose body is a form encoding other than multipart/form-data (urlencoded, multipart/mixed…): not a file's bytes. */
  unsupported_media_type: 415,
  range_not_satisfiable: 416,
  /** A write that a WebDAV lock forbids, made without its token (the API never holds one): docs/webdav.md. */
  locked: 423,
  too_many_requests: 429,
  /** Too many failed sign-ins for a username or from an address (Retry-After says when to retry). */
  too_many_attempts: 429,
  internal: 500,
  /** Something this deployment cannot do (resumable uploads with several daemons: docs/uploads.md). */
  not_implemented: 501,
  mail_failed: 502,
  /** A WebDAV COPY or MOVE whose Destination is on another server. */
  destination_elsewhere: 502,
  storage_unavailable: 503,
  /** PostgreSQL cannot be reached (docs/cluster.md); the daemon recovers by itself once it can. */
  database_unavailable: 503,
  quota_exceeded: 507,
  disk_full: 507,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
