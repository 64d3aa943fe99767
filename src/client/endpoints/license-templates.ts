/** `/v1/products/{productId}/releases/{releaseId}/license-templates` (contract §5, §8). */
import type { LicenseTemplateList, ListQuery } from '../../wire.js';
import type { ApiClient } from '../request.js';
import { toQuery } from './query.js';

/**
 * GET /v1/products/{productId}/releases/{releaseId}/license-templates (the list query, contract §5): one
 * page of a release's license templates; 404 for an unknown product or release.
 */
export const listLicenseTemplates = (c: ApiClient, productId: number, releaseId: number, query?: ListQuery, signal?: AbortSignal) =>
  c.request<LicenseTemplateList>('GET', `/v1/products/${productId}/releases/${releaseId}/license-templates`, {
    query: toQuery(query),
    signal,
  });
