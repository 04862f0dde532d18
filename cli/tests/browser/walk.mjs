// What every walk through the console in a real browser shares: Debian's chromium
// started through playwright-core (from npm; nothing downloads a browser), numbered
// screenshots of each step in OUT (each page must fit 1280 px: none scrolls sideways),
// and the first failed expectation ending the walk with exit 1, what was expected and
// the page it was on.
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
const { chromium } = require(path.join(process.env.NODE_ROOT, 'playwright-core'));

export const viewport = { width: 1280, height: 900 };

export const launch = () => chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});

// The steps of a walk in `browser`, on whichever page `current()` gives: `shot(name)`,
// `expect(what, ok)` and `text(selector)`.
export const steps = (browser, current, out) => {
  let step = 0;
  const shot = async (name) => {
    const page = current();
    step += 1;
    await page.screenshot({ path: path.join(out, `${String(step).padStart(2, '0')}-${name}.png`), fullPage: true });
    const wide = await page.evaluate(() => document.documentElement.scrollWidth);
    if (name !== 'failed' && wide > viewport.width) {
      await expect(`${name} fits 1280 px (it is ${wide} px wide)`, false);
    }
  };
  const expect = async (what, ok) => {
    if (!ok) {
      await shot('failed');
      console.error(`expected: ${what}\n${await current().content()}`);
      await browser.close();
      process.exit(1);
    }
  };
  const text = async (selector) => (await current().textContent(selector)) || '';
  return { shot, expect, text, count: () => step };
};
