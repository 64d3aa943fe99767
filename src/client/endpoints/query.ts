import type { Query } from '../request.js';

/** A typed query object → the request layer's Query (undefined values are dropped there). */
export const toQuery = (o: object | undefined): Query => ({ ...(o as Query) });
