/**
 * The demo's orders: two years of sales, direct and through resellers, in the customers'
 * currencies, each with a status, a payment and the dates that follow from them.
 */
import type { DatasetOrder, DatasetUser } from '../dataset.js';
import { CUSTOMERS, EDITIONS, PRODUCTS, RATES, RESELLER_IDS } from './catalogue.js';
import type { Market } from './customers.js';
import { DIGITS, UPPER_ALNUM, type Rng } from './rng.js';
import { DAY, HOUR, iso, MINUTE } from '../../../time.js';

/** An amount rounded as its currency is invoiced: yen to 10, others to the cent. */
function roundMoney(amount: number, currency: string): number {
  return currency === 'JPY' ? Math.round(amount / 10) * 10 : Math.round(amount * 100) / 100;
}

/**
 * 300 orders (ids 1..300 in time order) over the two years before `nowMs` (ms since the
 * epoch), the last at least 20 minutes before it, more of them in recent months: each of
 * 1 or 2 products the customer owns (`market`) at the release then current, priced by
 * edition, quantity and reseller discount in the customer's currency. Status, payment
 * and invoice follow the order's age and payment type; a manual order names the Sales
 * user of `users` as its creator. `r` is the `orders` stream.
 */
export function makeOrders(r: Rng, nowMs: number, { customers, owned, releaseInfo }: Market, users: DatasetUser[]): DatasetOrder[] {
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
          : `BT-${iso(paymentAt!).slice(0, 10).replace(/-/g, '')}-${r.chars(4, DIGITS)}`;
    const purchaseOrder =
      paymentType === 'PurchaseOrder' || (paymentType === 'Invoice' && r.chance(0.3)) ? `4500${r.chars(6, DIGITS)}` : '';
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
