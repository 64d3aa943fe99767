/**
 * The static catalogue of the demo dataset (all names invented): the vendor's five
 * products with their releases, editions and features, the editions' prices and terms,
 * twenty customers around the world, exchange rates and the names of licensees.
 */

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

/** The vendor's five products; their index + 1 is their id in the dataset. */
export const PRODUCTS: ProductSpec[] = [
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
