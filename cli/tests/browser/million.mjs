// A table of 1,000,000 monsters browsed in a real browser: its first page (the
// reference to an area shown as the area's name), the grid grown by scrolling while
// the browser keeps no more than a few pages of it, its last page, a search across
// every column, a filter by a text column and by a kind, an order by hit points, a
// row's blame, a reference followed, and a cell's address a colleague can open. Each
// step's screenshot is saved in OUT; the first failure exits 1 with what was expected.
//
//   BASE=http://127.0.0.1:PORT OUT=DIR NODE_ROOT=$(npm root -g) node million.mjs
import { launch, steps, viewport } from './walk.mjs';

const { BASE, OUT } = process.env;
const browser = await launch();
const page = await browser.newPage({ viewport });
page.setDefaultTimeout(120_000);
const { shot, expect, text, count } = steps(browser, () => page, OUT);
// The counts above the grid, digits without their separators.
const counts = async () => (await text('#counts')).replace(/(\d)[,.\u00a0\u202f](?=\d{3})/g, '$1');
const rows = () => page.locator('#rows tbody tr').count();
// The numbers in the grid's column `n` (1 is the first field), row by row.
const column = (n) => page.$$eval(`#rows tbody tr td:nth-of-type(${n})`, (cells) => cells.map((c) => c.textContent.trim()));
const table = `${BASE}/table?region=jp&table=monster`;
try {
  await page.goto(table);
  await expect('the first 100 of 1,000,000 rows', (await counts()).includes('Rows 1–100 of 1000000') && await rows() === 100);
  await expect('the description of the table', (await text('h1 + p')).includes('Every monster of the game'));
  await expect('the area shown as the row it points at', (await text('#rows tbody tr:first-child td.ref')).includes('— 洞窟'));
  await shot('million');

  // Scrolled: the grid grows a page at a time and lets the rows far above go.
  await page.goto(`${table}&rows=500`);
  const lastShown = async () => Number((await page.locator('#rows tbody tr:last-child th.row').textContent()).trim().split(' ')[0]);
  let last = await lastShown();
  for (let i = 0; i < 5; i += 1) {
    const before = last;
    await page.locator('#more-rows').scrollIntoViewIfNeeded();
    await page.waitForFunction((n) => {
      const shown = document.querySelectorAll('#rows tbody tr th.row');
      return Number(shown[shown.length - 1].textContent.trim().split(' ')[0]) > n;
    }, before);
    last = await lastShown();
  }
  await expect(`scrolled past row 2,500 (to ${last})`, last >= 3000);
  await expect(`at most 1,500 rows kept in the page (${await rows()})`, await rows() <= 1500);
  await expect('the address is still the first page\'s', !page.url().includes('from='));
  await shot('million-scrolled');

  // The last page, and nothing after it.
  await page.goto(`${table}&from=999900`);
  await expect('rows 999,901 to 1,000,000', (await counts()).includes('Rows 999901–1000000 of 1000000'));
  await expect('the last monster', (await column(1)).at(-1) === '1000000');
  await expect('no later rows', await page.locator('#counts a[rel=next]').count() === 0);
  await shot('million-last');

  // A search across every column.
  await page.goto(table);
  await page.fill('#q', 'モンスター777777');
  await page.press('#q', 'Enter');
  await expect('one monster matches', (await counts()).includes('Rows 1–1 of 1 matching, of 1000000'));
  await expect('the address keeps the search', page.url().includes('q='));
  await shot('million-searched');

  // Filtered by a text column, then by a kind too: 1 in 10 lives in the old castle,
  // 1 in 20 is a golem there.
  await page.goto(table);
  await page.fill('input[name="f.name"]', '古城');
  await page.press('input[name="f.name"]', 'Enter');
  await expect('100,000 in the old castle', (await counts()).includes('of 100000 matching, of 1000000'));
  await page.fill('input[name="f.kind"]', 'golem');
  await page.press('input[name="f.kind"]', 'Enter');
  await expect('50,000 golems there', (await counts()).includes('of 50000 matching, of 1000000'));
  await expect('each a golem in the old castle', (await column(3)).every((k) => k === 'golem')
    && (await column(2)).every((n) => n.startsWith('古城')));
  // Ordered by hit points (the column's heading), the filters kept.
  await page.getByRole('link', { name: 'hp', exact: true }).click();
  await expect('ordered by hit points, filters kept', page.url().includes('sort=hp') && page.url().includes('f.kind=golem'));
  const hp = (await column(4)).map(Number);
  await expect(`hit points rise (${hp.slice(0, 5)}…)`, hp.length === 100 && hp[0] < hp[99] && hp.every((v, i) => i === 0 || hp[i - 1] <= v));
  await shot('million-filtered');

  // A row's blame, one click from the grid.
  const key = (await column(1))[0];
  await page.locator('#rows a[title="Who changed this row\'s cells"]').first().click();
  await expect('the row\'s blame', page.url().includes('/blame?') && page.url().includes(`key=${key}`)
    && (await text('main')).includes('Test Planner'));
  await shot('million-blame');

  // A reference followed to the row it points at.
  await page.goto(`${table}&key=999999#row`);
  await expect('the row asked for, marked', (await text('tr.at')).includes('モンスター999999'));
  await page.locator('tr.at td.ref a').click();
  await expect('the area it lives in', page.url().includes('table=area') && (await text('tr.at')).includes('竜の巣'));
  // A cell's address, as a colleague opens it.
  await page.goto(`${table}&key=123456&field=hp#cell`);
  await expect('the cell asked for', (await text('td.at#cell')) === String((123456 * 7919 + Math.floor(123456 / 7)) % 10000));
  await shot('million-cell');
} finally {
  await browser.close();
}
console.log(`${count()} steps`);
