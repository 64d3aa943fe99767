/**
 * The demo's assemblies: those of each product's current release, strong-named with the
 * demo signing key, then three well-known third-party references.
 */
import type { DatasetAssembly } from '../dataset.js';
import { PRODUCTS } from './catalogue.js';
import { MAPPING_ID } from './resources.js';
import { HEX, type Rng } from './rng.js';

/**
 * The assemblies table (ids from 1, in order) and, per product index of PRODUCTS, the rows
 * of its current release (which that release's license templates copy). `r` is the
 * `assemblies` stream; `token` the signing key's public key token.
 */
export function makeAssemblies(r: Rng, token: string): { assemblies: DatasetAssembly[]; byProduct: DatasetAssembly[][] } {
  const assemblies: DatasetAssembly[] = [];
  const byProduct: DatasetAssembly[][] = PRODUCTS.map(() => []);
  PRODUCTS.forEach((p, pi) => {
    const current = p.releases[p.releases.length - 1]![0];
    for (const [name, culture] of p.assemblies) {
      const pdb = culture === '' && r.chance(0.75) ? `${name}.pdb/${r.chars(32, HEX)}1/${name}.pdb` : '';
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
      byProduct[pi]!.push(a);
    }
  });
  for (const [name, version, pkt] of [
    ['System.Xml.Linq', '4.0.0.0', 'b77a5c561934e089'],
    ['Mono.Cecil', '0.9.5.0', '0738eb9f132ed756'],
    ['Newtonsoft.Json', '13.0.0.0', '30ad4fe6b2a6aeed'],
  ] as const) {
    assemblies.push({ id: assemblies.length + 1, name, version, culture: '', publicKeyToken: pkt, mappingFileId: 0, debugSymbolsKey: '' });
  }
  return { assemblies, byProduct };
}
