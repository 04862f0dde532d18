// A planner's journey through the console in a real browser (Debian's chromium, driven
// by playwright-core): the regions, a branch's history, an upload with a mistake and
// its diagnostics, the fixed upload and its review, the import, the history showing
// it, and who changed the cell. Each step's screenshot is saved in OUT; the first
// failure exits 1 with what was expected.
//
//   BASE=http://127.0.0.1:PORT OUT=DIR BROKEN=file FIXED=file node journey.mjs
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
const { chromium } = require(path.join(process.env.NODE_ROOT, 'playwright-core'));
const { BASE, OUT, BROKEN, FIXED } = process.env;

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
let step = 0;
const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
const shot = async (name) => {
  step += 1;
  await page.screenshot({ path: path.join(OUT, `${String(step).padStart(2, '0')}-${name}.png`), fullPage: true });
};
const expect = async (what, ok) => {
  if (!ok) {
    await shot('failed');
    console.error(`expected: ${what}\n${await page.content()}`);
    await browser.close();
    process.exit(1);
  }
};
try {
  await page.goto(`${BASE}/`);
  await expect('the regions page lists masters/jp', await page.getByRole('link', { name: 'masters/jp' }).count() > 0);
  await shot('regions');
  await page.getByRole('link', { name: 'masters/jp' }).first().click();
  await expect('the history of masters/jp', (await page.textContent('h1')).includes('masters/jp'));
  await shot('history');
  await page.getByRole('link', { name: /Import workbooks/ }).click();
  // A workbook with a mistake: every diagnostic, nothing written.
  await page.setInputFiles('#files', BROKEN);
  await page.getByRole('button', { name: 'Check them' }).click();
  await expect('the diagnostics table', await page.locator('#diagnostics').count() === 1);
  await expect('the mistake named with its place', (await page.textContent('#diagnostics')).includes('Item.csv'));
  await shot('diagnostics');
  // The mistake's place opens the sheet as a grid, the cell highlighted with why.
  await page.locator('#diagnostics a').first().click();
  await expect('the bad cell highlighted', await page.locator('td.bad').count() === 1);
  await expect('the message beside it', (await page.textContent('td.bad')).includes('abc'));
  await shot('sheet');
  await page.getByRole('link', { name: 'Back to the review' }).click();
  // Fixed: the review of exactly what changes, then the import.
  await page.getByRole('link', { name: 'upload' }).click();
  await page.setInputFiles('#files', FIXED);
  await page.getByRole('button', { name: 'Check them' }).click();
  await expect('the review asks to import', (await page.textContent('h1')).includes('Import into masters/jp?'));
  await expect('the change counted', (await page.textContent('#changes')).includes('item'));
  await shot('review');
  await page.fill('#message', 'Steel sword 1500 (browser)');
  await page.getByRole('button', { name: 'Import' }).click();
  await expect('the history shows the import', (await page.content()).includes('Steel sword 1500 (browser)'));
  await shot('imported');
  // Who changed the steel sword's price.
  await page.fill('input[name=table]', 'item');
  await page.fill('input[name=key]', '2');
  await page.getByRole('button', { name: 'Blame' }).click();
  const blame = await page.textContent('table');
  await expect('blame names the import', blame.includes('1500') && blame.includes('1200'));
  await shot('blame');
  // Keyboard: the sign-out button is reachable by Tab.
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  await expect('focus moves by keyboard', await page.evaluate(() => document.activeElement !== document.body));
} finally {
  await browser.close();
}
console.log(`${step} steps`);
