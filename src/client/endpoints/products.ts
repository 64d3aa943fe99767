/** `/v1/customer/{customerCode}/products` (contract §3, §8). */
import type { CustomerProductList } from '../../wire.js';
import type { ApiClient } from '../request.js';

/**
 * GET /v1/customer/{customerCode}/products: every product of the caller's own customer
 * (role Customer); no query parameters, no paging, no total. Another code is a 404.
 */
export const listCustomerProducts = (c: ApiClient, customerCode: string) =>
  c.request<CustomerProductList>('GET', `/v1/customer/${encodeURIComponent(customerCode)}/products`);
