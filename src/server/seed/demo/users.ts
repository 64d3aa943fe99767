/** The demo's users, one per role, and an API key each. */
import type { DatasetApiKey, DatasetUser } from '../dataset.js';

/**
 * Four users, one per wire role, the Customer user belonging to the customer of
 * `customerCode`; and one key each, permissions 7 (read, write, delete), without `key`,
 * so that the load generates each secret.
 */
export function makeUsers(customerCode: string): { users: DatasetUser[]; apiKeys: DatasetApiKey[] } {
  const users: DatasetUser[] = [
    { id: 'admin', name: 'Margit Olsen', email: 'margit.olsen@halvard.example', role: 'Administrator' },
    { id: 'license-manager', name: 'Tomás Herrera', email: 'tomas.herrera@halvard.example', role: 'LicenseManager' },
    { id: 'sales', name: 'Priya Raman', email: 'priya.raman@halvard.example', role: 'Sales' },
    {
      id: 'customer',
      name: 'Jonas Weber',
      email: 'jonas.weber@mueller-praezision.example',
      role: 'Customer',
      customerCode,
    },
  ];
  const apiKeys: DatasetApiKey[] = users.map((u) => ({
    ownerId: u.id,
    name: `${u.role} demo key`,
    permissions: 7,
    description: `Demo key of ${u.name} (${u.role}): read, write and delete.`,
  }));
  return { users, apiKeys };
}
