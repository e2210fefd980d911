import express from 'express';
import { expressMessageClasses } from '../../../gateway-http/express-message-classes';
import { listenHttp } from '../../../gateway-http/http-server';
import { failChild, onStopRequest, tellParent } from '../support/child';

/**
 * The REST baseline: a bare express 5 app doing the least the same answers need. POST
 * /api/create parses the JSON body (express.json) and answers an envelope of the subject's size;
 * GET /:alias answers a 301 with a Location. Same node:http server settings (timeouts, limits)
 * as the subject, with node's own request and response types, as a bare express app gets them.
 *
 * With BENCH_PREBUILT_PROTOTYPES=1 its server builds requests and responses with the app's
 * prototypes, as the service's does (expressMessageClasses): an informational second baseline
 * showing how much of the service's standing comes from that alone.
 */
async function main(): Promise<void> {
  const sample = JSON.parse(process.env.BENCH_SAMPLE_LINK ?? '{}') as Record<string, unknown>;
  const location = typeof sample.url === 'string' ? sample.url : 'https://example.com/';
  let id = Number(sample.id ?? 0);

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.post('/api/create', express.json(), (_req, res) => {
    id += 1;
    res.status(200).json({ data: { ...sample, id }, code: 0, errors: [] });
  });
  app.get('/:alias', (_req, res) => {
    res.status(301).set('Location', location).end();
  });
  const running = await listenHttp(app, {
    port: 0,
    host: '127.0.0.1',
    ...(process.env.BENCH_PREBUILT_PROTOTYPES === '1' && {
      messageClasses: expressMessageClasses(app),
    }),
  });
  onStopRequest(() => running.close());
  await tellParent({ type: 'ready', httpPort: running.port });
}

main().catch(failChild);
