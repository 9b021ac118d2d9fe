/**
 * One handler per endpoint id of the shared table. Each reads its checked parameters
 * (`ParamsOf<Id>`), calls a service and returns the response body (`ResponseOf<Id>`); the
 * dispatcher sets the status and publishes the events the row declares. Handlers never
 * build error responses: services throw, the error middleware answers.
 */
import type { EndpointId } from '../../shared/endpoints.js';
import { ACCOUNT_HANDLERS } from './account-handlers.js';
import { DAEMON_HANDLERS } from './daemon-handlers.js';
import { FILE_HANDLERS } from './file-handlers.js';
import type { Handler } from './handler-support.js';
import { LINK_HANDLERS } from './link-handlers.js';
import { SHARE_HANDLERS } from './share-handlers.js';
import { VERSION_HANDLERS } from './version-handlers.js';

export type { Handler, HandlerInput, HandlerResult } from './handler-support.js';

/** Every row's handler, by concern: accounts, files, share links, the daemon itself, links opened in a browser. */
export const HANDLERS: { [Id in EndpointId]: Handler<Id> } = {
  ...ACCOUNT_HANDLERS,
  ...FILE_HANDLERS,
  ...SHARE_HANDLERS,
  ...VERSION_HANDLERS,
  ...DAEMON_HANDLERS,
  ...LINK_HANDLERS,
};
