/** `/v1/customers/{customerId}/orders` (contract §5, §8). */
import type { ListQuery, OrderList } from '../../wire.js';
import type { ApiClient } from '../request.js';
import { toQuery } from './query.js';

/** GET /v1/customers/{customerId}/orders (the list query, contract §5): one page of a customer's orders; 404 for an unknown customer. */
export const listOrders = (c: ApiClient, customerId: number, query?: ListQuery, signal?: AbortSignal) =>
  c.request<OrderList>('GET', `/v1/customers/${customerId}/orders`, { query: toQuery(query), signal });
