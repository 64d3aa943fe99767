/**
 * The static catalogue of the demo dataset (all names invented): the vendor's five
 * products with their releases, editions and features, the editions' prices and terms,
 * twenty customers around the world, exchange rates and the names of licensees.
 */
import products from './products.json' with { type: 'json' };

/** An edition of a product: what a license template sells. */
export type Edition = 'Standard' | 'Professional' | 'Enterprise' | 'Floating' | 'Trial';

/** A product of the vendor, as the generators read it. */
export interface ProductSpec {
  code: string;
  name: string;
  slug: string;
  description: string;
  price: number;
  currency: 'USD' | 'EUR';
  /** version → days before `now` of its release, oldest first */
  releases: [string, number][];
  editions: Edition[];
  licenseFileName: string;
  components: string[];
  /** assemblies of the current release: [name, culture] */
  assemblies: [string, string][];
  features: [id: string, name: string, description: string][];
}

/** The vendor's five products (./products.json, data only); their index + 1 is their id in the dataset. */
export const PRODUCTS = products as ProductSpec[];

interface EditionSpec {
  /** factor over the product's list price (0: free) */
  multiplier: number;
  /** the `type` of the License element of its template XML */
  licenseType: string;
  /** who may use it: a count, `unlimited` or `25 concurrent` */
  developers: string;
  /** how many of the product's features it includes (the first ones) */
  featureCount: number;
  /** its terms in a few words, for the template description */
  blurb: string;
}

/** Price factor, license type, developer seats, feature count and one-line terms of each edition. */
export const EDITIONS: Record<Edition, EditionSpec> = {
  Standard: { multiplier: 1, licenseType: 'Full', developers: '1', featureCount: 2, blurb: 'one named developer' },
  Professional: { multiplier: 1.8, licenseType: 'Full', developers: '5', featureCount: 4, blurb: 'a team of up to five developers' },
  Enterprise: {
    multiplier: 3.5,
    licenseType: 'Full',
    developers: 'unlimited',
    featureCount: 99,
    blurb: 'every developer of one organisation, royalty-free deployment',
  },
  Floating: {
    multiplier: 4.5,
    licenseType: 'Floating',
    developers: '25 concurrent',
    featureCount: 99,
    blurb: '25 concurrent seats leased from a license server',
  },
  Trial: { multiplier: 0, licenseType: 'Trial', developers: '1', featureCount: 99, blurb: 'a 30-day evaluation with every feature' },
};

/** [name, country, billing currency, contact e-mail] */
export const CUSTOMERS: [string, string, string, string][] = [
  ['Müller Präzisionstechnik GmbH', 'Germany', 'EUR', 'einkauf@mueller-praezision.example'],
  ['Bluewater Analytics Inc.', 'United States', 'USD', 'licensing@bluewater-analytics.example'],
  ['Société Lumière Informatique SARL', 'France', 'EUR', 'achats@lumiere-informatique.example'],
  ['Kōyō Data Systems K.K.', 'Japan', 'JPY', 'procurement@koyo-data.example'],
  ['Fjordline Software AS', 'Norway', 'EUR', 'post@fjordline.example'],
  ['Brightwell Logistics Ltd', 'United Kingdom', 'GBP', 'it-purchasing@brightwell.example'],
  ['Zürcher Finanzsoftware AG', 'Switzerland', 'CHF', 'lizenzen@zfs.example'],
  ['Ångström Instruments AB', 'Sweden', 'EUR', 'inkop@angstrom-instruments.example'],
  ['Pampas Agritech S.A.', 'Argentina', 'USD', 'compras@pampas-agritech.example'],
  ['Maple Leaf Health Records Corp.', 'Canada', 'USD', 'licensing@mapleleaf-health.example'],
  ['Castellano Ingeniería S.L.', 'Spain', 'EUR', 'compras@castellano-ing.example'],
  ['Kowalski & Nowak Sp. z o.o.', 'Poland', 'EUR', 'zakupy@kowalski-nowak.example'],
  ['Harbourside Insurance plc', 'United Kingdom', 'GBP', 'software.assets@harbourside.example'],
  ['Sakura Robotics Co., Ltd.', 'Japan', 'JPY', 'license-admin@sakura-robotics.example'],
  ['Outback Mining Software Pty Ltd', 'Australia', 'USD', 'accounts@outback-mining.example'],
  ['Van der Berg Logistiek B.V.', 'Netherlands', 'EUR', 'inkoop@vdberg-logistiek.example'],
  ['Lémanique Medical SA', 'Switzerland', 'CHF', 'informatique@lemanique-medical.example'],
  ['Quantum Ridge Capital LLC', 'United States', 'USD', 'vendor-mgmt@quantumridge.example'],
  ['Softvault Distribution GmbH', 'Germany', 'EUR', 'orders@softvault.example'],
  ['Channelpoint Resellers Ltd', 'United Kingdom', 'GBP', 'orders@channelpoint.example'],
];
/** Customers (1-based ids) that resell to others. */
export const RESELLER_IDS = [19, 20];

/** Units of each currency per US dollar (fixed demo rates). */
export const RATES: Record<string, number> = { USD: 1, EUR: 0.92, GBP: 0.79, JPY: 151, CHF: 0.88 };

/** Surnames and initials of licensees' users (`a.weber`), for the log. */
export const SURNAMES = [
  'weber',
  'tanaka',
  'dubois',
  'smith',
  'nowak',
  'garcia',
  'lindqvist',
  'okafor',
  'rossi',
  'haugen',
  'kim',
  'novak',
  'silva',
  'brown',
  'schmidt',
  'yamamoto',
];
export const INITIALS = 'abcdefghjklmnprst';
