import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { buildOpenApiDocument } from '../../gateway-http/openapi/openapi-document';
import type { Service } from '../../gateway-http/service';
import { startInProcessService } from '../support/in-process-service';
import { describeNeeding } from '../support/system-tools';

/** Debian's chromium (CI installs it when missing), driven by playwright-core. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
/** Set to a path to (re)write the README's screenshot of the page. */
const SCREENSHOT = process.env.SHORTLINK_DOCS_SCREENSHOT;

jest.setTimeout(120_000);

describeNeeding('chromium')('GET /docs in a real browser (headless Chromium)', () => {
  let service: Service;
  let profile: string;
  let context: BrowserContext;
  let page: Page;
  let origin: string;
  const requested: string[] = [];
  const pageErrors: string[] = [];

  beforeAll(async () => {
    service = await startInProcessService();
    origin = `http://127.0.0.1:${service.http.port}`;
    profile = await mkdtemp(join(tmpdir(), 'shortlink-chromium-'));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      args: CHROMIUM_ARGS,
      headless: true,
      viewport: { width: 1100, height: 900 },
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.on('request', (request) => requested.push(request.url()));
    page.on('pageerror', (error) => pageErrors.push(error.message));
  });
  afterAll(async () => {
    await context?.close();
    await rm(profile, { recursive: true, force: true });
    await service?.shutdown();
  });

  it('shows the create operation, sends a create with the demo credentials and shows the 200', async () => {
    const demo = service.demo!;
    await page.goto(`${origin}/docs`);
    const create = page.locator('#operations-links-createShortLink');
    await create.waitFor({ state: 'visible' });
    expect(await create.locator('.opblock-summary-path').innerText()).toContain('/api/create');
    // The page lists the document's operations, no more: no HEAD beside a GET, no catch-all.
    const listed = Object.values(buildOpenApiDocument().paths as Record<string, object>).flatMap(
      (methods) => Object.keys(methods),
    );
    expect(await page.locator('.opblock').count()).toBe(listed.length);
    expect(await page.locator('.opblock-head').count()).toBe(0);

    // Authorize with the demo token (the bearer scheme of the document).
    await page.locator('.btn.authorize').first().click();
    await page.locator('input[aria-label="auth-bearer-value"]').fill(demo.token);
    await page.locator('.btn.modal-btn.auth.authorize').click();
    await page.locator('.btn.modal-btn.auth.btn-done').click();

    // Open the operation and send a create with the demo organization.
    await create.locator('.opblock-summary').first().click();
    const body = create.locator('textarea.body-param__text');
    await body.waitFor({ state: 'visible' });
    await body.fill(
      JSON.stringify({
        organization_key: demo.organizationKey,
        url_group_id: demo.urlGroupId,
        url: 'https://example.com/sent-from-the-reference-page',
      }),
    );
    await create.locator('.btn.execute').click();

    const live = create.locator('.live-responses-table');
    await live.waitFor({ state: 'visible' });
    const answer = live.locator('tr.response');
    expect((await answer.locator('.response-col_status').innerText()).trim()).toBe('200');
    const shown = await answer.locator('.response-col_description').innerText();
    expect(shown).toContain('"short_url"');
    expect(shown).toContain(`http://${demo.domain}/`);

    if (SCREENSHOT) {
      await answer.scrollIntoViewIfNeeded();
      await page.screenshot({ path: SCREENSHOT });
    }

    // Nothing left the server, and the page threw nothing.
    expect(requested.length).toBeGreaterThan(3);
    expect(requested.filter((url) => !url.startsWith(`${origin}/`))).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
