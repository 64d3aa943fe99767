import type { FastifyInstance } from 'fastify';
import type { ServiceContext } from '../context.js';
import { apiKeyRoutes } from './api-keys.js';
import { logRoutes } from './log.js';

/** Registers every route of the management API on `app`. */
export async function registerRoutes(app: FastifyInstance, ctx: ServiceContext): Promise<void> {
  await apiKeyRoutes(app, ctx);
  await logRoutes(app, ctx);
}
