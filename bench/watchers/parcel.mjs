// @parcel/watcher: one subscription over the storage root. Its events are emitted as they
// come; besides, a directory it reports created is listed (as Nimbus does), and what that
// finds is emitted with listed: true, so the parent can count both.
import { subscribe } from '@parcel/watcher';
import { emitAndList } from './listing.mjs';
import { ready, root } from './protocol.mjs';

await subscribe(root, emitAndList);
ready();
