import type { FastifyInstance } from 'fastify';
import type { ServiceContext } from '../context.js';
import { apiKeyRoutes } from './api-keys.js';
import { assemblyRoutes } from './assemblies.js';
import { licenseTemplateRoutes } from './license-templates.js';
import { logRoutes } from './log.js';
import { orderRoutes } from './orders.js';
import { customerProductRoutes } from './products.js';
import { resourceRoutes } from './resources.js';

/** Registers every route of the management API on `app`. */
export async function registerRoutes(app: FastifyInstance, ctx: ServiceContext): Promise<void> {
  await apiKeyRoutes(app, ctx);
  await logRoutes(app, ctx);
  await resourceRoutes(app, ctx);
  await assemblyRoutes(app, ctx);
  await orderRoutes(app, ctx);
  await licenseTemplateRoutes(app, ctx);
  await customerProductRoutes(app, ctx);
}
