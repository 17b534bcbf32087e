/** GET /1.0/openapi.json: the OpenAPI 3.1 document generated from the route schemas (no key needed). */
import type { FastifyInstance } from 'fastify';

export async function openapiRoute(app: FastifyInstance) {
  app.get('/1.0/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
