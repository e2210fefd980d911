import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { demoCurl } from '../../core';
import type { Service } from '../../gateway-http/service';
import { startInProcessService } from '../support/in-process-service';
import { conformingFetch } from '../support/openapi-conformance';

const run = promisify(execFile);

/** What `npm start` does on the embedded default, checked with the real curl it prints. */
describe('start-up on the embedded default', () => {
  let service: Service;

  beforeAll(async () => {
    service = await startInProcessService();
  });
  afterAll(() => service.shutdown());

  it('provisions a demo organization on this server and prints a curl that works as printed', async () => {
    const demo = service.demo;
    expect(demo).toBeDefined();
    expect(demo!.domain).toBe(`localhost:${service.http.port}`);
    const command = demoCurl(demo!, `http://localhost:${service.http.port}`);
    const created = await run('bash', ['-c', command]);
    const body = JSON.parse(created.stdout) as {
      code: number;
      errors: string[];
      data: { short_url: string; url: string; redirect_type: number };
    };
    expect(body.code).toBe(0);
    expect(body.errors).toEqual([]);
    expect(body.data.short_url).toMatch(
      new RegExp(`^http://localhost:${service.http.port}/[0-9A-Za-z]{7}$`),
    );

    const followed = await run('curl', ['-s', '-i', body.data.short_url]);
    expect(followed.stdout).toMatch(/^HTTP\/1\.1 301 /);
    expect(followed.stdout).toContain(`Location: ${body.data.url}\r\n`);
  });

  it('answers /healthz and /readyz', async () => {
    const base = `http://127.0.0.1:${service.http.port}`;
    expect((await conformingFetch(`${base}/healthz`)).status).toBe(200);
    expect((await conformingFetch(`${base}/readyz`)).status).toBe(200);
  });
});
