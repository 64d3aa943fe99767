/**
 * The demo's product catalogue: the five products of PRODUCTS, their releases, and the
 * license templates of each release (an edition each), which orders and the log sell.
 */
import type { DatasetAssembly, DatasetLicenseTemplate, DatasetProduct, DatasetRelease } from '../dataset.js';
import { PRODUCTS, type Edition } from './catalogue.js';
import { makeTemplate } from './license-templates.js';
import { SIGNING_KEY_ID } from './resources.js';
import type { Rng } from './rng.js';
import { DAY, HOUR, iso } from '../../../time.js';

/** A license template as orders and the log pick it: its id, edition and name. */
interface TemplateInfo {
  id: number;
  edition: Edition;
  name: string;
}

/** A release as orders and the log pick it: id, PRODUCTS index, version, release time (ms) and its templates. */
export interface ReleaseInfo {
  id: number;
  productIndex: number;
  version: string;
  at: number;
  templates: TemplateInfo[];
}

/**
 * Products (ids 1..5, in PRODUCTS order), their releases and license templates (ids in
 * order of creation), dated relative to `nowMs` (ms since the epoch); `releaseInfo[i]` lists
 * the releases of product index i, oldest first. `r` is the `catalogue` stream;
 * `assembliesByProduct` the rows of each product's current release (makeAssemblies);
 * `token` the signing key's public key token.
 */
export function makeProducts(
  r: Rng,
  nowMs: number,
  assembliesByProduct: DatasetAssembly[][],
  token: string,
): {
  products: DatasetProduct[];
  releases: DatasetRelease[];
  licenseTemplates: DatasetLicenseTemplate[];
  releaseInfo: ReleaseInfo[][];
} {
  const products: DatasetProduct[] = [];
  const releases: DatasetRelease[] = [];
  const licenseTemplates: DatasetLicenseTemplate[] = [];
  const releaseInfo: ReleaseInfo[][] = [];
  PRODUCTS.forEach((p, pi) => {
    const id = pi + 1;
    const firstRelease = p.releases[0]![1];
    const createdAt = nowMs - (firstRelease + r.int(60, 200)) * DAY - r.int(8, 17) * HOUR;
    const year = new Date(createdAt).getUTCFullYear();
    products.push({
      id,
      code: p.code,
      name: p.name,
      description: p.description,
      url: `https://halvard.example/products/${p.slug}`,
      copyright: `© ${year}–${new Date(nowMs).getUTCFullYear()} Halvard Software Ltd. All rights reserved.`,
      createdAt: iso(createdAt),
      image: `https://halvard.example/img/products/${p.slug}-256.png`,
      price: p.price,
      resellerPrice: Math.round(p.price * 0.78),
      currency: p.currency,
      signatureKeysId: SIGNING_KEY_ID,
    });
    const infos: ReleaseInfo[] = [];
    p.releases.forEach(([version, daysAgo], ri) => {
      const latest = ri === p.releases.length - 1;
      const at = nowMs - daysAgo * DAY - r.int(9, 16) * HOUR;
      const rid = releases.length + 1;
      const [major, minor] = version.split('.');
      releases.push({ id: rid, productId: id, version, name: `${p.name} ${major}.${minor}`, releaseDate: iso(at) });
      const sellable = p.editions.filter((e) => e !== 'Trial');
      let editions: Edition[];
      if (latest) editions = sellable.slice(0, 3);
      else if (ri === 0) editions = [sellable[1]!];
      else editions = r.chance(0.5) ? [sellable[1]!, 'Trial'] : r.sample(sellable, 2);
      const info: ReleaseInfo = { id: rid, productIndex: pi, version, at, templates: [] };
      for (const edition of editions) {
        const t = makeTemplate(
          licenseTemplates.length + 1,
          p,
          id,
          rid,
          version,
          at,
          edition,
          latest ? assembliesByProduct[pi]! : [],
          token,
        );
        licenseTemplates.push(t);
        info.templates.push({ id: t.id, edition, name: t.name });
      }
      infos.push(info);
    });
    releaseInfo.push(infos);
  });
  return { products, releases, licenseTemplates, releaseInfo };
}
