/**
 * The built-in demo dataset of `lic serve --seed demo`: a fictitious component vendor
 * ("Halvard Software") with five products, their releases and license templates, twenty
 * customers around the world, two years of orders, four users (one per role) with a key
 * each, a signing key and e-mail templates, a few assemblies, and thirty days of license
 * transaction log. Everything is derived from (now, seed) by a seeded PRNG, so the same
 * inputs give the same dataset, byte for byte.
 */
import { createHash } from 'node:crypto';
import type { LogLevel } from '../../wire.js';
import type {
  Dataset,
  DatasetApiKey,
  DatasetAssembly,
  DatasetCustomer,
  DatasetCustomerProduct,
  DatasetLicenseTemplate,
  DatasetLogEntry,
  DatasetOrder,
  DatasetProduct,
  DatasetRelease,
  DatasetResource,
  DatasetUser,
} from './dataset.js';
import { DEMO_SNK_BASE64, NEW_LICENSE_EMAIL_HTML, RENEWAL_REMINDER_EMAIL_HTML, SHROUD_ENGINE_MAPPING_XML } from './demo-assets.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

// ---------------------------------------------------------------------------------------
// Seeded randomness

/** mulberry32: a small, fast 32-bit PRNG; good enough for demo data, not for secrets. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class Rng {
  private readonly next: () => number;
  /** One independent stream per (seed, section), so sections don't shift each other. */
  constructor(seed: number, section: string) {
    let h = 2166136261 ^ (seed >>> 0);
    for (const ch of section) h = Math.imul(h ^ ch.charCodeAt(0), 16777619);
    this.next = mulberry32(h ^ Math.imul(seed | 0, 0x9e3779b1));
  }
  float(): number {
    return this.next();
  }
  /** Integer in [lo, hi]. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[Math.floor(this.next() * items.length)]!;
  }
  weighted<T>(pairs: readonly (readonly [T, number])[]): T {
    const total = pairs.reduce((s, [, w]) => s + w, 0);
    let r = this.next() * total;
    for (const [v, w] of pairs) {
      r -= w;
      if (r < 0) return v;
    }
    return pairs[pairs.length - 1]![0];
  }
  /** `n` distinct items in random order. */
  sample<T>(items: readonly T[], n: number): T[] {
    const copy = [...items];
    for (let i = copy.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [copy[i], copy[j]] = [copy[j]!, copy[i]!];
    }
    return copy.slice(0, n);
  }
  chars(n: number, alphabet: string): string {
    let s = '';
    for (let i = 0; i < n; i++) s += alphabet[Math.floor(this.next() * alphabet.length)];
    return s;
  }
}

const UPPER_ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const HEX = '0123456789ABCDEF';

const iso = (ms: number): string => new Date(ms).toISOString();

// ---------------------------------------------------------------------------------------
// Static catalogue (all names invented)

type Edition = 'Standard' | 'Professional' | 'Enterprise' | 'Floating' | 'Trial';

interface ProductSpec {
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

const PRODUCTS: ProductSpec[] = [
  {
    code: 'SHROUD',
    name: 'ShroudIL Obfuscator',
    slug: 'shroudil',
    description:
      'Obfuscation and tamper protection for .NET assemblies: symbol renaming, control-flow scrambling, string and resource encryption.',
    price: 599,
    currency: 'USD',
    releases: [
      ['3.4.0', 905],
      ['4.0.0', 612],
      ['4.1.0', 331],
      ['4.2.0', 52],
    ],
    editions: ['Standard', 'Professional', 'Enterprise', 'Trial'],
    licenseFileName: 'ShroudIL.licenses',
    components: ['ShroudIL.Engine', 'ShroudIL.MSBuild', 'ShroudIL.Console', 'ShroudIL.VisualStudio'],
    assemblies: [
      ['ShroudIL.Engine', ''],
      ['ShroudIL.MSBuild', ''],
    ],
    features: [
      ['F-RENAME', 'Renaming', 'Renames types, methods and fields to meaningless short names'],
      ['F-CFLOW', 'ControlFlow', 'Scrambles method bodies into equivalent but unreadable control flow'],
      ['F-STRENC', 'StringEncryption', 'Encrypts string literals and decrypts them on first use'],
      ['F-RESENC', 'ResourceEncryption', 'Compresses and encrypts embedded resources'],
      ['F-TAMPER', 'TamperDetection', 'Detects modified assemblies at start-up'],
      ['F-MSIL', 'MsilEncryption', 'Encrypts selected method bodies and compiles them just in time'],
    ],
  },
  {
    code: 'LEDGERLINE',
    name: 'Ledgerline Reports',
    slug: 'ledgerline',
    description: 'Report designer and rendering engine for WinForms, WPF and ASP.NET Core, exporting to PDF, Excel, Word and HTML.',
    price: 899,
    currency: 'USD',
    releases: [
      ['6.0.0', 802],
      ['6.1.0', 468],
      ['7.0.0', 118],
    ],
    editions: ['Standard', 'Professional', 'Enterprise', 'Trial'],
    licenseFileName: 'Ledgerline.lic',
    components: ['Ledgerline.Designer', 'Ledgerline.Viewer.WinForms', 'Ledgerline.Viewer.Wpf', 'Ledgerline.Web'],
    assemblies: [
      ['Ledgerline.Reporting', ''],
      ['Ledgerline.Reporting.Wpf', ''],
    ],
    features: [
      ['F-DESIGN', 'Designer', 'End-user report designer control'],
      ['F-PDF', 'PdfExport', 'Export of rendered reports to PDF/A'],
      ['F-XLSX', 'ExcelExport', 'Export to Excel workbooks with formulas'],
      ['F-WEB', 'WebViewer', 'Browser-based viewer for ASP.NET Core'],
      ['F-SCHED', 'ScheduledDelivery', 'Scheduled rendering and e-mail delivery'],
    ],
  },
  {
    code: 'TESSERA',
    name: 'Tessera Licensing SDK',
    slug: 'tessera',
    description: 'Library and server for issuing, validating and activating software licenses, with hardware locking and floating seats.',
    price: 1290,
    currency: 'USD',
    releases: [
      ['5.0.0', 761],
      ['5.1.0', 259],
    ],
    editions: ['Standard', 'Professional', 'Floating', 'Trial'],
    licenseFileName: 'Tessera.license',
    components: ['Tessera.Licensing', 'Tessera.Activation', 'Tessera.FloatingServer'],
    assemblies: [['Tessera.Licensing', '']],
    features: [
      ['F-VALIDATE', 'LicenseValidation', 'Offline validation of signed license files'],
      ['F-HWLOCK', 'HardwareLocking', 'Binds licenses to a machine fingerprint'],
      ['F-ACTIVATE', 'OnlineActivation', 'Online activation and deactivation of machines'],
      ['F-FLOAT', 'FloatingLicenses', 'Concurrent-use licenses leased from a license server'],
      ['F-SERVER', 'LicenseServer', 'Self-hosted license server with usage reports'],
    ],
  },
  {
    code: 'FOLIO',
    name: 'Folio PDF Toolkit',
    slug: 'folio',
    description: 'Create, edit, merge, sign and render PDF documents from .NET without external dependencies.',
    price: 749,
    currency: 'EUR',
    releases: [
      ['7.2.0', 851],
      ['7.3.0', 539],
      ['8.0.0', 204],
      ['8.1.0', 19],
    ],
    editions: ['Standard', 'Professional', 'Enterprise', 'Trial'],
    licenseFileName: 'Folio.Pdf.lic',
    components: ['Folio.Pdf', 'Folio.Pdf.Rendering', 'Folio.Pdf.Forms'],
    assemblies: [
      ['Folio.Pdf', ''],
      ['Folio.Pdf.Rendering', ''],
    ],
    features: [
      ['F-CREATE', 'Create', 'Create documents with text, images and vector graphics'],
      ['F-EDIT', 'Edit', 'Edit and merge existing documents'],
      ['F-SIGN', 'DigitalSignatures', 'Sign and verify documents (PAdES)'],
      ['F-RENDER', 'Rendering', 'Render pages to bitmaps and print'],
      ['F-PDFA', 'PdfA', 'Validate and convert to PDF/A-2b and PDF/A-3'],
    ],
  },
  {
    code: 'PLOTWISE',
    name: 'Plotwise Charts',
    slug: 'plotwise',
    description: 'Interactive 2D and 3D charting controls for desktop and web dashboards, fast enough for live data.',
    price: 449,
    currency: 'USD',
    releases: [
      ['11.0.0', 779],
      ['11.1.0', 402],
      ['12.0.0', 88],
    ],
    editions: ['Standard', 'Professional', 'Enterprise', 'Trial'],
    licenseFileName: 'Plotwise.lic',
    components: ['Plotwise.Charts', 'Plotwise.Charts.Wpf', 'Plotwise.Charts.Blazor'],
    assemblies: [
      ['Plotwise.Charts', ''],
      ['Plotwise.Charts.resources', 'de'],
    ],
    features: [
      ['F-2D', 'Charts2D', 'Line, bar, area, pie and scatter charts'],
      ['F-3D', 'Charts3D', 'Surface and 3D scatter charts'],
      ['F-LIVE', 'RealTime', 'Streaming data at 60 frames per second'],
      ['F-DASH', 'Dashboards', 'Dashboard layouts with linked filters'],
      ['F-EXPORT', 'Export', 'Export charts to PNG, SVG and PDF'],
    ],
  },
];

interface EditionSpec {
  multiplier: number;
  licenseType: string;
  developers: string;
  featureCount: number;
  blurb: string;
}

const EDITIONS: Record<Edition, EditionSpec> = {
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
const CUSTOMERS: [string, string, string, string][] = [
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
const RESELLER_IDS = [19, 20];

/** Units of each currency per US dollar (fixed demo rates). */
const RATES: Record<string, number> = { USD: 1, EUR: 0.92, GBP: 0.79, JPY: 151, CHF: 0.88 };

const SURNAMES = [
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
const INITIALS = 'abcdefghjklmnprst';

// ---------------------------------------------------------------------------------------
// Helpers

function xmlEscape(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Public key token (16 hex) of a PRIVATEKEYBLOB strong-name key pair, as .NET computes it. */
function publicKeyToken(snk: Buffer): string {
  const bitLen = snk.readUInt32LE(12);
  const modulus = snk.subarray(20, 20 + bitLen / 8);
  const pub = Buffer.alloc(12 + 20 + modulus.length);
  pub.writeUInt32LE(0x2400, 0); // SigAlgId CALG_RSA_SIGN
  pub.writeUInt32LE(0x8004, 4); // HashAlgId CALG_SHA1
  pub.writeUInt32LE(20 + modulus.length, 8);
  pub.writeUInt8(0x06, 12); // PUBLICKEYBLOB
  pub.writeUInt8(0x02, 13);
  pub.writeUInt32LE(0x2400, 16);
  pub.write('RSA1', 20, 'ascii');
  snk.copy(pub, 24, 12, 20); // bitlen, pubexp
  modulus.copy(pub, 32);
  const sha1 = createHash('sha1').update(pub).digest();
  return Buffer.from(sha1.subarray(sha1.length - 8))
    .reverse()
    .toString('hex');
}

function roundMoney(amount: number, currency: string): number {
  return currency === 'JPY' ? Math.round(amount / 10) * 10 : Math.round(amount * 100) / 100;
}

/** Serilog's rendering of a message template: strings quoted, numbers as they are. */
function render(template: string, values: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => {
    const v = values[name];
    if (v === undefined) return whole;
    return typeof v === 'number' ? String(v) : JSON.stringify(v);
  });
}

// ---------------------------------------------------------------------------------------
// The dataset

interface TemplateInfo {
  id: number;
  edition: Edition;
  name: string;
}
interface ReleaseInfo {
  id: number;
  productIndex: number;
  version: string;
  at: number;
  templates: TemplateInfo[];
}

/**
 * Builds the demo dataset relative to `now` (all timestamps at or before it): 5 products,
 * 16 releases, 1-3 license templates per release, 20 customers (codes `C-XXXXXXXX`) with
 * product links, 300 orders over the last 2 years, 4 users (one per wire role; the
 * Customer user belongs to customer 1, which owns 2+ products) with one key each
 * (permissions 7, secret generated at load), 4 resources (RSA/SNK signing key, two
 * html e-mail templates, an xml mapping file), 12 assemblies and 3000 log entries over
 * the last 30 days (600 in the last 24 h, every level present there), oldest first.
 * Deterministic: the same (now, seed) give a deep-equal dataset; no Math.random, no clock.
 * The result passes parseDataset. Throws only on a non-finite `now`.
 */
export function buildDemoDataset(now: Date, seed = 1): Dataset {
  const nowMs = now.getTime();
  if (!Number.isFinite(nowMs)) throw new RangeError('buildDemoDataset: now is not a valid date');
  const rng = (section: string): Rng => new Rng(seed, section);

  // --- resources
  const snk = Buffer.from(DEMO_SNK_BASE64, 'base64');
  const token = publicKeyToken(snk);
  const SIGNING_KEY_ID = 1;
  const MAPPING_ID = 4;
  const resources: DatasetResource[] = [
    {
      id: SIGNING_KEY_ID,
      name: 'Demo signing key',
      type: 'RSA',
      code: 'demo-signing-key',
      description: `1024-bit RSA strong-name key pair (public key token ${token}) that signs the demo licenses. It is public: never sign real licenses with it.`,
      source: 'Generated with node:crypto for the lic demo dataset',
      password: '',
      createdAt: iso(nowMs - 1200 * DAY),
      updatedAt: iso(nowMs - 1200 * DAY),
      data: DEMO_SNK_BASE64,
      dataFormat: 'SNK',
    },
    {
      id: 2,
      name: 'New license e-mail',
      type: 'email',
      code: 'email-new-license',
      description: 'Sent to the customer when an order is completed and its licenses are issued.',
      source: 'Halvard Software marketing, rev. 3',
      password: '',
      createdAt: iso(nowMs - 1150 * DAY),
      updatedAt: iso(nowMs - 141 * DAY),
      data: Buffer.from(NEW_LICENSE_EMAIL_HTML, 'utf8').toString('base64'),
      dataFormat: 'html',
    },
    {
      id: 3,
      name: 'Support renewal reminder e-mail',
      type: 'email',
      code: 'email-renewal-reminder',
      description: 'Sent 30 days before the support period of a license ends.',
      source: 'Halvard Software marketing, rev. 1',
      password: '',
      createdAt: iso(nowMs - 610 * DAY),
      updatedAt: iso(nowMs - 610 * DAY),
      data: Buffer.from(RENEWAL_REMINDER_EMAIL_HTML, 'utf8').toString('base64'),
      dataFormat: 'html',
    },
    {
      id: MAPPING_ID,
      name: 'ShroudIL.Engine 4.2.0 mapping',
      type: 'MappingFile',
      code: 'map-shroudil-engine-4.2.0',
      description: 'Obfuscation map of ShroudIL.Engine 4.2.0.0, for decoding customer stack traces.',
      source: 'ShroudIL build 4.2.0.1187',
      password: '',
      createdAt: iso(nowMs - 52 * DAY),
      updatedAt: iso(nowMs - 52 * DAY),
      data: Buffer.from(SHROUD_ENGINE_MAPPING_XML, 'utf8').toString('base64'),
      dataFormat: 'xml',
    },
  ];

  // --- assemblies (current releases of our products, then third-party references)
  const asmRng = rng('assemblies');
  const assemblies: DatasetAssembly[] = [];
  const productAssemblies: DatasetAssembly[][] = PRODUCTS.map(() => []);
  PRODUCTS.forEach((p, pi) => {
    const current = p.releases[p.releases.length - 1]![0];
    for (const [name, culture] of p.assemblies) {
      const pdb = culture === '' && asmRng.chance(0.75) ? `${name}.pdb/${asmRng.chars(32, HEX)}1/${name}.pdb` : '';
      const a: DatasetAssembly = {
        id: assemblies.length + 1,
        name,
        version: `${current}.0`,
        culture,
        publicKeyToken: token,
        mappingFileId: name === 'ShroudIL.Engine' ? MAPPING_ID : 0,
        debugSymbolsKey: pdb,
      };
      assemblies.push(a);
      productAssemblies[pi]!.push(a);
    }
  });
  for (const [name, version, pkt] of [
    ['System.Xml.Linq', '4.0.0.0', 'b77a5c561934e089'],
    ['Mono.Cecil', '0.9.5.0', '0738eb9f132ed756'],
    ['Newtonsoft.Json', '13.0.0.0', '30ad4fe6b2a6aeed'],
  ] as const) {
    assemblies.push({ id: assemblies.length + 1, name, version, culture: '', publicKeyToken: pkt, mappingFileId: 0, debugSymbolsKey: '' });
  }

  // --- products, releases, license templates
  const catRng = rng('catalogue');
  const products: DatasetProduct[] = [];
  const releases: DatasetRelease[] = [];
  const licenseTemplates: DatasetLicenseTemplate[] = [];
  const releaseInfo: ReleaseInfo[][] = [];
  PRODUCTS.forEach((p, pi) => {
    const id = pi + 1;
    const firstRelease = p.releases[0]![1];
    const createdAt = nowMs - (firstRelease + catRng.int(60, 200)) * DAY - catRng.int(8, 17) * HOUR;
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
      const at = nowMs - daysAgo * DAY - catRng.int(9, 16) * HOUR;
      const rid = releases.length + 1;
      const [major, minor] = version.split('.');
      releases.push({ id: rid, productId: id, version, name: `${p.name} ${major}.${minor}`, releaseDate: iso(at) });
      const sellable = p.editions.filter((e) => e !== 'Trial');
      let editions: Edition[];
      if (latest) editions = sellable.slice(0, 3);
      else if (ri === 0) editions = [sellable[1]!];
      else editions = catRng.chance(0.5) ? [sellable[1]!, 'Trial'] : catRng.sample(sellable, 2);
      const info: ReleaseInfo = { id: rid, productIndex: pi, version, at, templates: [] };
      for (const edition of editions) {
        const t = makeTemplate(licenseTemplates.length + 1, p, id, rid, version, at, edition, latest ? productAssemblies[pi]! : [], token);
        licenseTemplates.push(t);
        info.templates.push({ id: t.id, edition, name: t.name });
      }
      infos.push(info);
    });
    releaseInfo.push(infos);
  });

  // --- customers and their products
  const custRng = rng('customers');
  const codes = new Set<string>();
  const customers: DatasetCustomer[] = CUSTOMERS.map(([name, country, , email], i) => {
    let code: string;
    do code = `C-${custRng.chars(8, UPPER_ALNUM)}`;
    while (codes.has(code));
    codes.add(code);
    return { id: i + 1, code, name, email, country, createdAt: iso(nowMs - custRng.int(745, 1500) * DAY - custRng.int(0, DAY - 1)) };
  });
  const owned: number[][] = customers.map((c) => {
    const all = PRODUCTS.map((_, pi) => pi);
    const byId = (a: number, b: number): number => a - b;
    if (c.id === 1) return [0, 3, ...custRng.sample([1, 2, 4], custRng.int(0, 1))].sort(byId);
    if (RESELLER_IDS.includes(c.id)) return custRng.sample(all, custRng.int(4, 5)).sort(byId);
    return custRng
      .sample(
        all,
        custRng.weighted([
          [1, 5],
          [2, 4],
          [3, 2],
        ] as const),
      )
      .sort(byId);
  });
  const customerProducts: DatasetCustomerProduct[] = owned.flatMap((ps, ci) => ps.map((pi) => ({ customerId: ci + 1, productId: pi + 1 })));

  // --- users and keys
  const customerUser = customers[0]!;
  const users: DatasetUser[] = [
    { id: 'admin', name: 'Margit Olsen', email: 'margit.olsen@halvard.example', role: 'Administrator' },
    { id: 'license-manager', name: 'Tomás Herrera', email: 'tomas.herrera@halvard.example', role: 'LicenseManager' },
    { id: 'sales', name: 'Priya Raman', email: 'priya.raman@halvard.example', role: 'Sales' },
    {
      id: 'customer',
      name: 'Jonas Weber',
      email: 'jonas.weber@mueller-praezision.example',
      role: 'Customer',
      customerCode: customerUser.code,
    },
  ];
  const apiKeys: DatasetApiKey[] = users.map((u) => ({
    ownerId: u.id,
    name: `${u.role} demo key`,
    permissions: 7,
    description: `Demo key of ${u.name} (${u.role}): read, write and delete.`,
  }));

  const orders = makeOrders(rng('orders'), nowMs, customers, owned, releaseInfo, users);
  const log = makeLog(rng('log'), nowMs, customers, owned, releaseInfo);

  return {
    users,
    apiKeys,
    customers,
    products,
    releases,
    licenseTemplates,
    customerProducts,
    orders,
    resources,
    assemblies,
    log,
  };
}

function makeTemplate(
  id: number,
  p: ProductSpec,
  productId: number,
  releaseId: number,
  version: string,
  releasedAt: number,
  edition: Edition,
  currentAssemblies: DatasetAssembly[],
  token: string,
): DatasetLicenseTemplate {
  const e = EDITIONS[edition];
  const [major, minor] = version.split('.');
  const features = p.features.slice(0, e.featureCount).map(([fid, name, description]) => ({
    id: fid,
    name,
    description,
    expireDate: '',
    key: '',
    data: '',
  }));
  if (edition === 'Enterprise') {
    features.push({
      id: 'F-PREVIEW',
      name: 'PreviewFeatures',
      description: 'Early access to features of the next major version',
      expireDate: iso(releasedAt + 365 * DAY),
      key: '',
      data: '',
    });
  }
  if (edition === 'Floating') {
    features.forEach((f) => {
      if (f.id === 'F-SERVER') f.data = '{"port":7071,"leaseMinutes":60}';
    });
  }
  const restrictions: DatasetLicenseTemplate['restrictions'] =
    edition === 'Trial'
      ? [{ id: 'R-TRIAL', name: 'Trial', expireDate: '', properties: { days: '30', watermark: 'true' } }]
      : edition === 'Floating'
        ? [{ id: 'R-FLOAT', name: 'Floating', expireDate: '', properties: { seats: '25', leaseMinutes: '60' } }]
        : edition === 'Enterprise'
          ? [{ id: 'R-ORG', name: 'Organization', expireDate: '', properties: { scope: 'legal-entity', deployment: 'royalty-free' } }]
          : [{ id: 'R-DEV', name: 'Developers', expireDate: '', properties: { max: e.developers } }];
  const supportMonths = edition === 'Trial' ? '0' : '12';

  const featureXml = features.map((f) => `      <Feature id="${f.id}" name="${f.name}" />`).join('\n');
  const restrictionXml = restrictions
    .map(
      (r) =>
        `      <${r.name} ${Object.entries(r.properties)
          .map(([k, v]) => `${k}="${xmlEscape(v)}"`)
          .join(' ')} />`,
    )
    .join('\n');
  const issue = iso(releasedAt);
  const supportEnd = iso(releasedAt + (edition === 'Trial' ? 30 : 365) * DAY);
  const template = `<?xml version="1.0" encoding="utf-8"?>
<Licenses xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
  <License id="{LicenseId}" type="${e.licenseType}" issueDate="${issue}" supportExpireDate="${supportEnd}">
    <Licensee name="{CustomerName}" company="{CompanyName}" email="{CustomerEmail}" />
    <Product name="${xmlEscape(p.name)}" version="${version}">
      <Description>${xmlEscape(p.description)}</Description>
      <Edition>${edition}</Edition>
    </Product>
    <Features>
${featureXml}
    </Features>
    <Restrictions>
${restrictionXml}
    </Restrictions>
  </License>
</Licenses>
`;
  return {
    id,
    name: `${p.name} ${major}.${minor} ${edition}`,
    code: `${p.code}-${version.replace(/\./g, '')}-${edition.slice(0, 3).toUpperCase()}`,
    format: 'Xml',
    licenseFileName: p.licenseFileName,
    generateKeyInfo: edition === 'Enterprise' || edition === 'Floating',
    description: `${edition} license of ${p.name} ${version}, for ${e.blurb}.`,
    template,
    productId,
    signatureKeysId: 1,
    releaseId,
    components: edition === 'Standard' ? p.components.slice(0, 2) : [...p.components],
    // current release: copies of the assemblies table rows; older ones: id 0 (not stored)
    assemblies: currentAssemblies.length
      ? currentAssemblies.map((a) => ({ ...a }))
      : p.assemblies.map(([name, culture]) => ({
          id: 0,
          name,
          version: `${version}.0`,
          culture,
          publicKeyToken: token,
          mappingFileId: 0,
          debugSymbolsKey: '',
        })),
    fields: [
      { name: 'Edition', value: edition },
      { name: 'Developers', value: e.developers },
      { name: 'SupportMonths', value: supportMonths },
    ],
    features,
    restrictions,
  };
}

// ---------------------------------------------------------------------------------------
// Orders

function makeOrders(
  r: Rng,
  nowMs: number,
  customers: DatasetCustomer[],
  owned: number[][],
  releaseInfo: ReleaseInfo[][],
  users: DatasetUser[],
): DatasetOrder[] {
  const COUNT = 300;
  const latest = nowMs - 20 * MINUTE;
  const weights = customers.map((c) => [c.id, RESELLER_IDS.includes(c.id) ? 6 : r.int(1, 5)] as const);
  const times: number[] = [];
  for (let i = 0; i < COUNT; i++) {
    const u = r.float();
    // half uniform over two years, half weighted toward recent months (a growing business)
    const days = r.chance(0.5) ? 730 * u : 730 * (1 - Math.sqrt(u));
    times.push(Math.min(latest, nowMs - days * DAY));
  }
  times.sort((a, b) => a - b);

  const sales = users.find((u) => u.role === 'Sales')!;
  const orderSeq = new Map<number, number>();
  const invoiceSeq = new Map<number, number>();
  const nextIn = (m: Map<number, number>, year: number, start: number): number => {
    const n = (m.get(year) ?? start) + 1;
    m.set(year, n);
    return n;
  };

  return times.map((createdAt, i): DatasetOrder => {
    const customerId = r.weighted(weights);
    const customer = customers[customerId - 1]!;
    const currency = CUSTOMERS[customerId - 1]![2];
    const year = new Date(createdAt).getUTCFullYear();
    const ageDays = (nowMs - createdAt) / DAY;
    const resellerId = !RESELLER_IDS.includes(customerId) && r.chance(0.12) ? r.pick(RESELLER_IDS) : 0;

    // line items
    const mine = owned[customerId - 1]!;
    const lines: string[] = [];
    let total = 0;
    for (const pi of r.sample(mine, r.chance(0.8) ? 1 : Math.min(2, mine.length))) {
      const p = PRODUCTS[pi]!;
      const infos = releaseInfo[pi]!;
      const rel = [...infos].reverse().find((x) => x.at <= createdAt) ?? infos[0]!;
      const t = r.pick(rel.templates.filter((x) => x.edition !== 'Trial'));
      const e = EDITIONS[t.edition];
      const renewal = r.chance(0.18);
      const qty =
        t.edition === 'Floating' || renewal
          ? 1
          : r.weighted([
              [1, 55],
              [2, 20],
              [3, 10],
              [5, 8],
              [10, 4],
              [25, 3],
            ] as const);
      let unit = p.price * e.multiplier * (resellerId ? 0.78 : 1) * (renewal ? 0.4 : 1);
      unit *= qty >= 10 ? 0.8 : qty >= 5 ? 0.9 : 1;
      const converted = (unit / RATES[p.currency]!) * RATES[currency]!;
      total += roundMoney(converted, currency) * qty;
      lines.push(renewal ? `Support renewal, 12 months: ${t.name}` : `${qty} × ${t.name}`);
    }
    total = roundMoney(total, currency);

    const status =
      ageDays < 7
        ? r.weighted([
            ['Pending', 45],
            ['Processing', 30],
            ['Completed', 20],
            ['Cancelled', 5],
          ] as const)
        : ageDays < 45
          ? r.weighted([
              ['Pending', 15],
              ['Processing', 20],
              ['Completed', 55],
              ['Cancelled', 6],
              ['Refunded', 4],
            ] as const)
          : r.weighted([
              ['Completed', 82],
              ['Cancelled', 9],
              ['Refunded', 9],
            ] as const);
    const paymentType = r.weighted([
      ['CreditCard', 40],
      ['PayPal', 20],
      ['BankTransfer', 15],
      ['Invoice', 15],
      ['PurchaseOrder', 10],
    ] as const);
    const online = paymentType === 'CreditCard' || paymentType === 'PayPal';
    // licenses of invoiced orders go out before the money comes in (payment terms)
    const paymentStatus =
      status === 'Completed'
        ? online
          ? 'Paid'
          : ageDays < 30
            ? r.weighted([
                ['Unpaid', 40],
                ['PartiallyPaid', 20],
                ['Paid', 40],
              ] as const)
            : r.weighted([
                ['Paid', 94],
                ['PartiallyPaid', 6],
              ] as const)
        : status === 'Refunded'
          ? 'Refunded'
          : status === 'Pending'
            ? online && r.chance(0.3)
              ? 'Failed'
              : 'Unpaid'
            : status === 'Cancelled'
              ? online && r.chance(0.5)
                ? 'Failed'
                : 'Unpaid'
              : online
                ? 'Paid'
                : r.weighted([
                    ['Unpaid', 55],
                    ['PartiallyPaid', 20],
                    ['Paid', 25],
                  ] as const);

    const cap = (t: number): number => Math.max(createdAt, Math.min(t, latest));
    const paid = paymentStatus === 'Paid' || paymentStatus === 'PartiallyPaid' || paymentStatus === 'Refunded';
    const paymentAt = paid ? cap(createdAt + (online ? r.int(1, 15) * MINUTE : r.int(1, 30) * DAY + r.int(0, 8) * HOUR)) : null;
    const base = paymentAt ?? createdAt;
    const updatedAt =
      status === 'Completed'
        ? cap(base + r.int(5, 240) * MINUTE)
        : status === 'Refunded'
          ? cap(base + r.int(3, 45) * DAY)
          : status === 'Cancelled'
            ? cap(createdAt + r.int(1, 10 * 24) * HOUR)
            : status === 'Processing'
              ? cap(base + r.int(10, 300) * MINUTE)
              : createdAt;

    const paymentNumber = !paid
      ? ''
      : paymentType === 'CreditCard'
        ? `TXN-${r.chars(12, UPPER_ALNUM)}`
        : paymentType === 'PayPal'
          ? r.chars(17, UPPER_ALNUM)
          : `BT-${iso(paymentAt!).slice(0, 10).replace(/-/g, '')}-${r.chars(4, '0123456789')}`;
    const purchaseOrder =
      paymentType === 'PurchaseOrder' || (paymentType === 'Invoice' && r.chance(0.3)) ? `4500${r.chars(6, '0123456789')}` : '';
    const invoiced = status === 'Completed' || status === 'Refunded' || (status === 'Processing' && !online);
    const invoiceNumber = invoiced ? `INV-${year}-${String(nextIn(invoiceSeq, year, 0)).padStart(5, '0')}` : '';
    const manual = !online;

    return {
      id: i + 1,
      orderNumber: `ORD-${year}-${String(nextIn(orderSeq, year, 1000)).padStart(5, '0')}`,
      status,
      processedBy: status === 'Pending' ? '' : manual ? sales.name : 'Web shop',
      purchaseOrder,
      total,
      currency,
      createdAt: iso(createdAt),
      updatedAt: iso(updatedAt),
      invoiceNumber,
      paymentType,
      paymentNumber,
      paymentStatus,
      paymentDate: paymentAt === null ? '' : iso(paymentAt),
      description: lines.join('; '),
      customerId: customer.id,
      resellerId,
      createdById: manual ? sales.id : '',
    };
  });
}

// ---------------------------------------------------------------------------------------
// The log

interface License {
  id: string;
  customerCode: string;
  productCode: string;
  productName: string;
  version: string;
  edition: Edition;
  machines: string[];
  seats: number;
}

interface Ctx {
  r: Rng;
  lic: License;
  machine: string;
  user: string;
  ip: string;
}

type Values = Record<string, string | number>;

interface EventDef {
  level: LogLevel;
  weight: number;
  template: string;
  source: string;
  values: (c: Ctx) => Values;
  /** concerns a concurrent-use license (picked among licenses with 5+ seats) */
  floating?: true;
  exception?: (c: Ctx, v: Values) => string;
}

const SVC = 'Halvard.Licensing.Service';

function trace(type: string, message: string, frames: string[]): string {
  return `${type}: ${message}\n${frames.map((f) => `   at ${f}`).join('\n')}`;
}

const VALIDATE_FRAMES = [
  'Halvard.Licensing.Validation.LicenseValidator.ValidateAsync(LicenseDocument license, ValidationContext context, CancellationToken ct) in /src/Licensing/Validation/LicenseValidator.cs:line 118',
  'Halvard.Licensing.Service.LicenseEndpoint.Validate(ValidateRequest request, ServerCallContext context) in /src/Licensing.Service/LicenseEndpoint.cs:line 64',
  'Grpc.Shared.Server.UnaryServerMethodInvoker`3.ResolvedInterceptorInvoker(TRequest resolvedRequest, ServerCallContext resolvedContext)',
];

const FAILURES: [reason: string, exception: (c: Ctx) => string][] = [
  [
    'signature mismatch',
    () =>
      trace(
        'Halvard.Licensing.LicenseSignatureException',
        'The license signature does not match its content; the file was edited after signing.',
        [
          'Halvard.Licensing.Validation.SignatureCheck.Verify(LicenseDocument license, RsaPublicKey key) in /src/Licensing/Validation/SignatureCheck.cs:line 72',
          ...VALIDATE_FRAMES,
        ],
      ),
  ],
  [
    'hardware id mismatch',
    (c) =>
      trace(
        'Halvard.Licensing.HardwareMismatchException',
        `License is bound to another machine; fingerprint of "${c.machine}" differs in 3 of 5 components.`,
        [
          'Halvard.Licensing.Validation.HardwareLock.Check(LicenseDocument license, MachineFingerprint fingerprint) in /src/Licensing/Validation/HardwareLock.cs:line 41',
          ...VALIDATE_FRAMES,
        ],
      ),
  ],
  [
    'license expired',
    (c) =>
      trace('Halvard.Licensing.LicenseExpiredException', `License ${c.lic.id} expired ${c.r.int(1, 90)} days ago.`, [
        'Halvard.Licensing.Validation.ExpiryCheck.Check(LicenseDocument license, DateTimeOffset now) in /src/Licensing/Validation/ExpiryCheck.cs:line 29',
        ...VALIDATE_FRAMES,
      ]),
  ],
  [
    'unknown product version',
    (c) =>
      trace(
        'Halvard.Licensing.LicenseValidationException',
        `License covers ${c.lic.productCode} up to ${c.lic.version}; client reported ${c.lic.version.replace(/^(\d+)/, (m) => String(Number(m) + 1))}.`,
        [
          'Halvard.Licensing.Validation.VersionCheck.Check(LicenseDocument license, Version clientVersion) in /src/Licensing/Validation/VersionCheck.cs:line 33',
          ...VALIDATE_FRAMES,
        ],
      ),
  ],
];

const EVENTS: EventDef[] = [
  // Verbose
  {
    level: 'Verbose',
    weight: 30,
    source: `${SVC}.LicenseStore`,
    template: 'Loading license {LicenseId} from store',
    values: (c) => ({ LicenseId: c.lic.id }),
  },
  {
    level: 'Verbose',
    weight: 25,
    source: 'Halvard.Licensing.Validation.SignatureCheck',
    template: 'Verifying signature of license {LicenseId} with key {KeyName}',
    values: (c) => ({ LicenseId: c.lic.id, KeyName: 'Demo signing key' }),
  },
  {
    level: 'Verbose',
    weight: 25,
    source: 'Halvard.Licensing.Validation.LicenseValidator',
    template: 'Evaluating {RestrictionCount} restrictions of license {LicenseId}',
    values: (c) => ({ RestrictionCount: c.r.int(1, 4), LicenseId: c.lic.id }),
  },
  // Debug
  {
    level: 'Debug',
    weight: 40,
    source: `${SVC}.LicenseEndpoint`,
    template: 'License check request from {ClientIp} for {ProductCode} {Version}',
    values: (c) => ({ ClientIp: c.ip, ProductCode: c.lic.productCode, Version: c.lic.version }),
  },
  {
    level: 'Debug',
    weight: 30,
    source: `${SVC}.LicenseCache`,
    template: 'Cache hit for license {LicenseId} ({AgeSeconds} s old)',
    values: (c) => ({ LicenseId: c.lic.id, AgeSeconds: c.r.int(1, 3600) }),
  },
  {
    level: 'Debug',
    weight: 20,
    source: `${SVC}.FloatingPool`,
    template: 'Floating pool of license {LicenseId} has {Available} of {Seats} seats free',
    floating: true,
    values: (c) => {
      const seats = c.lic.seats;
      return { LicenseId: c.lic.id, Available: c.r.int(0, seats), Seats: seats };
    },
  },
  // Information
  {
    level: 'Information',
    weight: 260,
    source: `${SVC}.LicenseEndpoint`,
    template: 'License {LicenseId} validated for {CustomerCode} on {MachineId}',
    values: (c) => ({ LicenseId: c.lic.id, CustomerCode: c.lic.customerCode, MachineId: c.machine }),
  },
  {
    level: 'Information',
    weight: 90,
    source: `${SVC}.ActivationService`,
    template: 'License {LicenseId} activated for {CustomerCode} on {MachineId}',
    values: (c) => ({ LicenseId: c.lic.id, CustomerCode: c.lic.customerCode, MachineId: c.machine }),
  },
  {
    level: 'Information',
    weight: 35,
    source: `${SVC}.ActivationService`,
    template: 'License {LicenseId} deactivated for {CustomerCode} on {MachineId}',
    values: (c) => ({ LicenseId: c.lic.id, CustomerCode: c.lic.customerCode, MachineId: c.machine }),
  },
  {
    level: 'Information',
    weight: 90,
    source: `${SVC}.FloatingPool`,
    template: 'Floating license {LicenseId} granted to {UserName} on {MachineId} ({InUse} of {Seats} seats in use)',
    floating: true,
    values: (c) => ({ LicenseId: c.lic.id, UserName: c.user, MachineId: c.machine, InUse: c.r.int(1, c.lic.seats), Seats: c.lic.seats }),
  },
  {
    level: 'Information',
    weight: 80,
    source: `${SVC}.FloatingPool`,
    template: 'Floating license {LicenseId} released by {UserName} on {MachineId} after {Minutes} min',
    floating: true,
    values: (c) => ({ LicenseId: c.lic.id, UserName: c.user, MachineId: c.machine, Minutes: c.r.int(2, 540) }),
  },
  {
    level: 'Information',
    weight: 15,
    source: `${SVC}.IssuingService`,
    template: 'License {LicenseId} issued to {CustomerCode} for {ProductName} {Version}',
    values: (c) => ({ LicenseId: c.lic.id, CustomerCode: c.lic.customerCode, ProductName: c.lic.productName, Version: c.lic.version }),
  },
  // Warning
  {
    level: 'Warning',
    weight: 40,
    source: `${SVC}.ExpiryMonitor`,
    template: 'License {LicenseId} of {CustomerCode} expires in {Days} days',
    values: (c) => ({ LicenseId: c.lic.id, CustomerCode: c.lic.customerCode, Days: c.r.pick([30, 14, 7, 3, 1]) }),
  },
  {
    level: 'Warning',
    weight: 35,
    source: `${SVC}.ActivationService`,
    template: 'Activation refused for license {LicenseId} on {MachineId}: {Activations} of {MaxActivations} activations used',
    values: (c) => {
      const max = c.r.pick([1, 2, 3, 5, 10]);
      return { LicenseId: c.lic.id, MachineId: c.machine, Activations: max, MaxActivations: max };
    },
  },
  {
    level: 'Warning',
    weight: 30,
    source: `${SVC}.FloatingPool`,
    template: 'Floating license request for {LicenseId} by {UserName} denied: all {Seats} seats in use',
    floating: true,
    values: (c) => ({ LicenseId: c.lic.id, UserName: c.user, Seats: c.lic.seats }),
  },
  {
    level: 'Warning',
    weight: 20,
    source: `${SVC}.LicenseEndpoint`,
    template: 'Clock of {MachineId} is {SkewSeconds} s off the server clock (license {LicenseId})',
    values: (c) => ({ MachineId: c.machine, SkewSeconds: c.r.pick([-1, 1]) * c.r.int(120, 86_400), LicenseId: c.lic.id }),
  },
  // Error
  {
    level: 'Error',
    weight: 50,
    source: 'Halvard.Licensing.Validation.LicenseValidator',
    template: 'License validation failed for {LicenseId} on {MachineId}: {Reason}',
    values: (c) => ({ LicenseId: c.lic.id, MachineId: c.machine, Reason: c.r.pick(FAILURES)[0] }),
    exception: (c, v) => FAILURES.find(([reason]) => reason === v.Reason)![1](c),
  },
  {
    level: 'Error',
    weight: 20,
    source: `${SVC}.ActivationService`,
    template: 'Activation of license {LicenseId} failed for {CustomerCode}',
    values: (c) => ({ LicenseId: c.lic.id, CustomerCode: c.lic.customerCode }),
    exception: (c) =>
      trace('Halvard.Licensing.ActivationException', `Activation request of "${c.machine}" carried an expired nonce (replayed request?).`, [
        'Halvard.Licensing.Activation.NonceGuard.Consume(String nonce, DateTimeOffset now) in /src/Licensing/Activation/NonceGuard.cs:line 52',
        `${SVC}.ActivationService.ActivateAsync(ActivateRequest request, ServerCallContext context) in /src/Licensing.Service/ActivationService.cs:line 97`,
      ]),
  },
  {
    level: 'Error',
    weight: 12,
    source: `${SVC}.FloatingPool`,
    template: 'Could not release floating license {LicenseId} held by {MachineId}',
    floating: true,
    values: (c) => ({ LicenseId: c.lic.id, MachineId: c.machine }),
    exception: (c) =>
      trace(
        'System.InvalidOperationException',
        `No lease of license ${c.lic.id} is held by "${c.machine}"; it may have timed out already.`,
        [
          `${SVC}.FloatingPool.Release(String licenseId, String machineId) in /src/Licensing.Service/FloatingPool.cs:line 133`,
          `${SVC}.FloatingEndpoint.Release(ReleaseRequest request, ServerCallContext context) in /src/Licensing.Service/FloatingEndpoint.cs:line 58`,
        ],
      ),
  },
  // Fatal
  {
    level: 'Fatal',
    weight: 3,
    source: `${SVC}.LicenseStore`,
    template: 'License store unavailable; {Operation} aborted after {Attempts} attempts',
    values: (c) => ({ Operation: c.r.pick(['validation', 'activation', 'floating lease']), Attempts: 5 }),
    exception: () =>
      trace('Microsoft.Data.Sqlite.SqliteException', "SQLite Error 5: 'database is locked'.", [
        'Microsoft.Data.Sqlite.SqliteException.ThrowExceptionForRC(Int32 rc, sqlite3 db)',
        'Microsoft.Data.Sqlite.SqliteDataReader.NextResult()',
        `${SVC}.LicenseStore.FindAsync(String licenseId, CancellationToken ct) in /src/Licensing.Service/LicenseStore.cs:line 88`,
      ]),
  },
  {
    level: 'Fatal',
    weight: 1,
    source: `${SVC}.SigningKeys`,
    template: 'Signing key {KeyName} could not be loaded',
    values: () => ({ KeyName: 'Demo signing key' }),
    exception: () =>
      trace('System.Security.Cryptography.CryptographicException', 'Bad Version of provider.', [
        'System.Security.Cryptography.CapiHelper.ImportKeyBlob(SafeProvHandle saveProvHandle, CspProviderFlags flags, Boolean addNoSaltFlag, Byte[] keyBlob)',
        `${SVC}.SigningKeys.Load(Resource resource) in /src/Licensing.Service/SigningKeys.cs:line 47`,
      ]),
  },
];

function machineName(r: Rng, customerCode: string): string {
  switch (r.int(0, 4)) {
    case 0:
      return `DESKTOP-${r.chars(7, UPPER_ALNUM)}`;
    case 1:
      return `WS-${customerCode.slice(2, 5)}-${r.int(100, 999)}`;
    case 2:
      return `build-agent-${String(r.int(1, 12)).padStart(2, '0')}`;
    case 3:
      return `LAPTOP-${r.chars(6, UPPER_ALNUM)}`;
    default:
      return `srv-app-${String(r.int(1, 8)).padStart(2, '0')}`;
  }
}

function makeLog(r: Rng, nowMs: number, customers: DatasetCustomer[], owned: number[][], releaseInfo: ReleaseInfo[][]): DatasetLogEntry[] {
  const TOTAL = 3000;
  const RECENT = 600; // within the last 24 h

  // licenses in the field
  const licenses: License[] = [];
  owned.forEach((ps, ci) => {
    for (const pi of ps) {
      const p = PRODUCTS[pi]!;
      const infos = releaseInfo[pi]!;
      const count = r.int(1, 4);
      for (let k = 0; k < count; k++) {
        const rel = r.chance(0.7) ? infos[infos.length - 1]! : r.pick(infos);
        const t = r.pick(rel.templates);
        const seats =
          t.edition === 'Floating' ? r.pick([10, 25, 50]) : t.edition === 'Enterprise' ? 20 : Number(EDITIONS[t.edition].developers) || 5;
        const code = customers[ci]!.code;
        licenses.push({
          id: `LIC-${r.chars(4, UPPER_ALNUM)}-${r.chars(4, UPPER_ALNUM)}-${r.chars(4, UPPER_ALNUM)}`,
          customerCode: code,
          productCode: p.code,
          productName: p.name,
          version: rel.version,
          edition: t.edition,
          machines: Array.from({ length: r.int(1, 6) }, () => machineName(r, code)),
          seats,
        });
      }
    }
  });

  const floating = licenses.filter((l) => l.seats >= 5);
  if (floating.length === 0) floating.push(...licenses);

  const levels: LogLevel[] = ['Verbose', 'Debug', 'Information', 'Warning', 'Error', 'Fatal'];
  const levelWeights: [LogLevel, number][] = [
    ['Verbose', 8],
    ['Debug', 14],
    ['Information', 58],
    ['Warning', 13],
    ['Error', 6.6],
    ['Fatal', 0.4],
  ];

  const entries: { t: number; e: DatasetLogEntry }[] = [];
  for (let i = 0; i < TOTAL; i++) {
    const recent = i < RECENT;
    const t = recent ? nowMs - Math.floor(r.float() * DAY) : nowMs - DAY - Math.floor(r.float() * 29 * DAY) - 1;
    // the first six recent entries cover every level, so `--since 24h` shows all of them
    const level = recent && i < levels.length ? levels[i]! : r.weighted(levelWeights);
    const def = r.weighted(EVENTS.filter((d) => d.level === level).map((d) => [d, d.weight] as const));
    const lic = r.pick(def.floating ? floating : licenses);
    const ctx: Ctx = {
      r,
      lic,
      machine: r.pick(lic.machines),
      user: `${r.pick([...INITIALS])}.${r.pick(SURNAMES)}`,
      ip: r.chance(0.15)
        ? `2001:db8:${r.int(1, 0xffff).toString(16)}::${r.int(1, 0xffff).toString(16)}`
        : `${r.pick(['192.0.2', '198.51.100', '203.0.113'])}.${r.int(1, 254)}`,
    };
    const values = def.values(ctx);
    const entry: DatasetLogEntry = {
      timeStamp: iso(t),
      level,
      message: render(def.template, values),
      messageTemplate: def.template,
      properties: JSON.stringify({ ...values, SourceContext: def.source }),
    };
    if (def.exception) entry.exception = def.exception(ctx, values);
    entries.push({ t, e: entry });
  }
  entries.sort((a, b) => a.t - b.t);
  return entries.map((x) => x.e);
}
