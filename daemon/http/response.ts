/**
 * The daemon's response class (node:http's ServerResponse, given to the server in
 * daemon/http/server.ts).
 */
import http from 'node:http';

export class NimbusResponse extends http.ServerResponse {}
