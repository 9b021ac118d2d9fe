/**
 * Compile-time checks that the answers the daemon builds with its own types (DaneeCloud's
 * dialect, a folder link's listing) are the ones the OpenAPI document describes: a field added
 * to either side without the other fails `npm run typecheck`. Nothing here runs.
 */
import type { Equals, Infer } from '../../shared/api-schema.js';
import type { DaneeCloudDashSchema, DaneeCloudUserSchema } from '../../shared/api-schema-daneecloud.js';
import type { LinkListingSchema } from '../../shared/api-schema-files.js';
import type { LinkListing } from '../services/folder-links.js';
import type { DaneeCloudDash, DaneeCloudUser } from './dialect.js';

type Same<A, B> = Equals<{ [K in keyof A]: A[K] }, { [K in keyof B]: B[K] }>;

export const SCHEMAS_MATCH_DAEMON_TYPES: [
  Same<DaneeCloudUser, Infer<typeof DaneeCloudUserSchema>>,
  Same<DaneeCloudDash, Infer<typeof DaneeCloudDashSchema>>,
  Same<LinkListing, Infer<typeof LinkListingSchema>>,
] = [true, true, true];
