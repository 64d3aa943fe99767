/** The demo's license templates: one edition of one product release, with its license XML. */
import type { DatasetAssembly, DatasetLicenseTemplate } from '../dataset.js';
import { EDITIONS, type Edition, type ProductSpec } from './catalogue.js';
import { SIGNING_KEY_ID } from './resources.js';
import { DAY, iso } from '../../../time.js';

/** Text for an XML attribute value or element: `& < > "` escaped. */
function xmlEscape(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/**
 * The license template `id` of `edition` of product `p` (dataset id `productId`), release
 * `releaseId` (`version`, released at `releasedAt`, ms since the epoch): the edition's
 * features, restrictions and fields, and a Licenses/License XML template with `{Name}`
 * placeholders. `currentAssemblies` are the assembly rows of a current release (copied
 * with their ids); for an older release (empty) the product's assemblies are described
 * with id 0, strong-named with `token`.
 */
export function makeTemplate(
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
    signatureKeysId: SIGNING_KEY_ID,
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
