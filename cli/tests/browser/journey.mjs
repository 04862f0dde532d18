// A planner's journey through the console in a real browser (Debian's chromium, driven
// by playwright-core): the regions, a branch's history, an upload with a mistake and
// its diagnostics, the fixed upload (dropped on the form) and its review, the import,
// the history showing it, and who changed the cell; the current masters downloaded
// (and, where LibreOffice is, the planner's workbook edited in it with two mistakes of
// different kinds, both said on the first upload), a table scrolled, searched, filtered
// and a row's blame opened from it, five cells edited (one refused as typed) and a row
// copied in the browser, committed as one change and taken back; a rebase stopped on a
// conflict, resolved by a value typed (checked as it is typed) and gone on; a work
// branch an editor proposes and a maintainer merges (a console with users); a
// translation file with a failing unit, then fixed and taken; a second release
// published and the first made current again with a reason, every step in the audit
// log; two planners editing one table in two browsers, the stale edit caught; then the
// day's pages again in Japanese, with no English on any. Each step's screenshot is
// saved in OUT; the first failure exits 1 with what was expected.
//
//   BASE=http://127.0.0.1:PORT TEAM=http://127.0.0.1:PORT2 OUT=DIR BROKEN=file FIXED=file
//   BROKEN_PO=file FIXED_PO=file ENGLISH=console/locales/en.ftl
//   [LO_PYTHON=python3-with-uno LO_EDIT=cli/tests/tools/libreoffice_edit.py] node journey.mjs
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { launch, steps, viewport } from './walk.mjs';

const { BASE, TEAM, OUT, BROKEN, FIXED, BROKEN_PO, FIXED_PO, ENGLISH, LO_PYTHON, LO_EDIT } = process.env;

const browser = await launch();
let page = await browser.newPage({ viewport });
const { shot, expect, text, count } = steps(browser, () => page, OUT);
// On a row's form in `planner`'s page: a price typed, checked as it is typed, and kept
// in the planner's draft.
const keepPrice = async (planner, price) => {
  await planner.locator('input[name="v.price"]').fill(price);
  await planner.waitForSelector('input[name="v.price"] + .checked.ok');
  await planner.getByRole('button', { name: 'Keep these changes' }).click();
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
  // Dropped on the form, as from a file manager.
  await page.evaluate(({ name, content }) => {
    const files = new DataTransfer();
    files.items.add(new File([content], name, { type: 'text/csv' }));
    document.querySelector('[data-drop]').dispatchEvent(new DragEvent('drop', { dataTransfer: files, bubbles: true, cancelable: true }));
  }, { name: path.basename(FIXED), content: fs.readFileSync(FIXED, 'utf8') });
  await expect('the dropped file is chosen', (await text('.chosen')).includes('Item.csv'));
  await shot('dropped');
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
  // Arabic, Chinese and Japanese in one cell: shown as typed, read right to left.
  const world = page.locator('td', { hasText: 'سيف فولاذي' }).first();
  await expect('the cell in three scripts', (await world.textContent()).includes('钢之剑 · よく鍛えられた剣'));
  await expect('an Arabic cell reads right to left', await world.evaluate((td) => td.matches(':dir(rtl)')));
  await shot('blame');
  // Keyboard: the sign-out button is reachable by Tab.
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  await expect('focus moves by keyboard', await page.evaluate(() => document.activeElement !== document.body));

  // The current masters in the browser: downloaded as workbooks; the item table
  // grown by scrolling (the server pages it); a row edited in a form that checks each
  // value as it is typed (a price past the maximum refused), a copy added as a new row,
  // both reviewed and committed as one change, then taken back from the history.
  await page.goto(`${BASE}/tables?region=jp`);
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download')]);
  await expect('the workbooks downloaded', /\.(zip|xlsx)$/.test(download.suggestedFilename()));
  if (LO_PYTHON) {
    // The planner's own workbook, from the download, edited in LibreOffice with two
    // mistakes of different kinds (a price that is no number, a category that is not
    // there): both are said on the first upload.
    const saved = path.join(OUT, download.suggestedFilename());
    await download.saveAs(saved);
    const book = path.join(OUT, 'Item.xlsx');
    execFileSync(LO_PYTHON, ['-c', [
      'import sys, zipfile',
      'z = zipfile.ZipFile(sys.argv[1])',
      'name = next(n for n in z.namelist() if n.endswith("Item.xlsx"))',
      'open(sys.argv[2], "wb").write(z.read(name))',
    ].join('\n'), saved, book]);
    execFileSync(LO_PYTHON, [LO_EDIT, book, 'Item', 'F3', 'abc', 'D3', '99']);
    await page.goto(`${BASE}/import?region=jp`);
    await page.setInputFiles('#files', book);
    await page.getByRole('button', { name: 'Check them' }).click();
    const mistakes = await text('#diagnostics');
    await expect('both mistakes on the first upload',
      mistakes.includes('found `abc`') && mistakes.includes('no `category` has id 99'));
    await expect('named by the planner\'s workbook and sheet', mistakes.includes('Item.xlsx') && mistakes.includes('Item!F3'));
    await shot('libreoffice-mistakes');
  }
  await page.goto(`${BASE}/table?region=jp&table=item&rows=2`);
  await expect('a page of two rows', (await text('#counts')).includes('Rows 1–2 of'));
  await page.locator('#more-rows').scrollIntoViewIfNeeded();
  await page.waitForFunction(() => document.querySelectorAll('#rows tbody tr').length > 2);
  await shot('table-scrolled');
  // Searched across the table, then filtered by a column, and a row's blame opened
  // from the grid: each state in the address a colleague can open.
  await page.goto(`${BASE}/table?region=jp&table=item`);
  await page.fill('#q', '剣');
  await page.press('#q', 'Enter');
  await expect('the search narrows the rows', (await text('#counts')).includes('matching, of'));
  const searched = await page.locator('#rows tbody tr').count();
  await page.fill('input[name="f.rarity"]', 'rare');
  await page.press('input[name="f.rarity"]', 'Enter');
  await expect('the address keeps the search and the filter', page.url().includes('q=') && page.url().includes('f.rarity=rare'));
  const filtered = await page.locator('#rows tbody tr').count();
  await expect(`the filter narrows them further (${searched} → ${filtered})`, filtered > 0 && filtered <= searched);
  await shot('table-filtered');
  await page.locator('#rows a[title="Who changed this row\'s cells"]').first().click();
  await expect('the row\'s blame', page.url().includes('/blame?') && (await text('h1')).length > 0);
  await page.goto(`${BASE}/table?region=jp&table=item`);
  await page.locator('#rows a[title="Edit this row"]').first().click();
  const price = page.locator('input[name="v.price"]');
  await price.fill('2000000');
  await page.waitForSelector('input[name="v.price"] + .checked.bad');
  await expect('a price past the maximum refused as typed', (await text('input[name="v.price"] + .checked')).includes('1000000'));
  await price.fill('120');
  await page.waitForSelector('input[name="v.price"] + .checked.ok');
  await shot('row-form');
  await page.getByRole('button', { name: 'Keep these changes' }).click();
  await expect('the edit waiting', (await text('#waiting')).includes('1 edit'));
  // Four more rows' prices: five cells edited in all.
  for (let row = 1; row < 5; row += 1) {
    await page.locator('#rows a[title="Edit this row"]').nth(row).click();
    await keepPrice(page, String(100 + row));
  }
  await expect('five edits waiting', (await text('#waiting')).includes('5 edits'));
  await page.locator('#rows a[title="Edit this row"]').first().click();
  await page.getByRole('link', { name: 'Copy into a new row' }).click();
  await page.fill('input[name="v.id"]', '999');
  // Its tags edited item by item: one added (refused as typed while it breaks the
  // column's pattern), one removed; the cell written as the file writes it.
  const tags = page.getByRole('group', { name: 'tags' });
  await expect('the tags as two items', await tags.locator('li input').count() === 2);
  await tags.getByRole('button', { name: 'Add an item' }).click();
  await tags.locator('li input').last().fill('Big Sale');
  await page.waitForSelector('input[name="v.tags"] ~ .checked.bad');
  await tags.locator('li input').last().fill('big_sale');
  await page.waitForSelector('input[name="v.tags"] ~ .checked.ok');
  await tags.getByRole('button', { name: 'Remove' }).first().click();
  await expect('the tags as the file writes them', await page.inputValue('input[name="v.tags"]') === 'starter|big_sale');
  // The same by keyboard alone: from the field before, Tab to "Add an item", Enter, and
  // the new item (focused) typed into.
  await page.focus('input[name="v.unlock_quest_id"]');
  for (let i = 0; i < 12; i += 1) {
    if (await page.evaluate(() => document.activeElement.classList.contains('add-item'))) break;
    await page.keyboard.press('Tab');
  }
  await page.keyboard.press('Enter');
  await page.keyboard.type('kbd');
  await page.waitForSelector('input[name="v.tags"] ~ .checked.ok');
  await expect('an item added by keyboard alone', await page.inputValue('input[name="v.tags"]') === 'starter|big_sale|kbd');
  await shot('row-tags');
  await page.getByRole('button', { name: 'Add the row' }).click();
  await expect('six edits waiting', (await text('#waiting')).includes('6 edits'));
  await page.getByRole('link', { name: 'review and commit them' }).click();
  await expect('the edits reviewed', (await text('#changes')).includes('item'));
  await shot('edits');
  await page.fill('#message', 'Cheaper first item (browser)');
  await page.getByRole('button', { name: /^Commit as/ }).click();
  await expect('the history shows the edit', (await text('main')).includes('Cheaper first item (browser)'));
  await page.locator('a.undo').first().click();
  await page.getByRole('button', { name: 'Take it back' }).click();
  await expect('the edit taken back', (await text('main')).includes('The commit was taken back'));
  await shot('edit-taken-back');

  // The maintainer names this state a version and publishes it for servers and clients.
  await page.goto(`${BASE}/releases?region=jp`);
  await page.fill('#version', '1.0');
  await page.fill('#tag-message', 'December');
  await page.getByRole('button', { name: 'Tag', exact: true }).click();
  await expect('tagged', (await text('main')).includes('is version 1.0'));
  await page.fill('#publish-message', 'December prices');
  await page.getByRole('button', { name: 'Build and publish' }).click();
  await page.waitForSelector('text=Published: release');
  await expect('published, current, named by its version', (await text('main')).includes('(masters/jp/1.0) is current'));
  await shot('published');

  // A rebase of global onto jp stops on the item both changed; a value of its own is
  // typed (checked as it is typed), set, and the rebase goes on.
  await page.goto(`${BASE}/history?region=global`);
  await page.getByRole('link', { name: 'Rebase' }).click();
  await expect('the review shows the conflict', await page.locator('#conflicts').count() === 1);
  await shot('rebase-review');
  await page.getByRole('button', { name: 'Rebase', exact: true }).click();
  await expect('the rebase stopped on the conflict', (await text('main')).includes('stopped on conflicts'));
  const value = page.locator('#conflicts input[name=value]').first();
  await value.fill('many');
  await page.waitForSelector('.checked.bad');
  await expect('a value that is no number is flagged', (await text('.checked')).includes('not'));
  await value.fill('2800');
  await page.waitForSelector('.checked.ok');
  await shot('conflict-typed');
  await page.locator('#conflicts button[value=value]').first().click();
  await expect('no conflict left', await page.locator('#conflicts').count() === 0);
  await page.getByRole('button', { name: 'Go on' }).click();
  await expect('the history of masters/global', (await text('h1')).includes('masters/global'));
  await expect('the rebase in it', (await text('main')).includes('Rebase global onto jp'));
  await shot('rebased');

  // A translation file with a failing unit: every failure with its unit and source.
  await page.goto(`${BASE}/translations?region=jp`);
  await page.setInputFiles('#file', BROKEN_PO);
  await page.getByRole('button', { name: 'Check it' }).click();
  await expect('the failing unit named', (await text('#failures')).includes('placeholder'));
  await expect('with its source text', (await text('#failures')).includes('HPを'));
  await shot('translation-failing');
  await page.getByRole('link', { name: 'upload it again' }).click();
  await page.setInputFiles('#file', FIXED_PO);
  await page.getByRole('button', { name: 'Check it' }).click();
  await page.getByRole('button', { name: 'Take them' }).click();
  await expect('back on the translations', (await text('h1')).includes('Translations of masters/jp'));
  await shot('translation-taken');

  // A studio's console: an editor proposes the work branch; a maintainer merges it.
  page = await (await browser.newContext({ viewport })).newPage();
  const signIn = async (token) => {
    await page.goto(`${TEAM}/`);
    await page.fill('#token', token);
    await page.getByRole('button', { name: 'Sign in' }).click();
  };
  await signIn('token-of-eddie');
  await page.goto(`${TEAM}/join?kind=merge&region=jp&branch=event`);
  await expect('an editor sees the merge, and may propose it', await page.getByRole('button', { name: 'Propose this merge' }).count() === 1);
  await page.fill('#proposal-message', 'Event prices for December');
  await page.getByRole('button', { name: 'Propose this merge' }).click();
  await expect('proposed', (await text('#proposal')).includes('Event prices for December'));
  await shot('proposed');
  await page.getByRole('button', { name: 'Sign out' }).click();
  await signIn('token-of-mia');
  await expect('the maintainer sees the proposal', (await text('#proposals')).includes('work/jp/event'));
  await shot('proposals');
  await page.locator('#proposals a').first().click();
  await expect('the message taken as the merge message', await page.inputValue('#message') === 'Event prices for December');
  await page.getByRole('button', { name: 'Merge', exact: true }).click();
  await expect('the history of masters/jp shows the merge', (await text('main')).includes('merged: work/jp/event'));
  await shot('merged');

  // Two planners edit one table in two browsers: each sees the other at work there;
  // the second to commit is told, cell by cell, what changed under the edit, and
  // nothing of either is lost.
  const browsing = async (token) => {
    const other = await (await browser.newContext({ viewport })).newPage();
    await other.goto(`${TEAM}/`);
    await other.fill('#token', token);
    await other.getByRole('button', { name: 'Sign in' }).click();
    return other;
  };
  const [eddie, mia] = [await browsing('token-of-eddie'), await browsing('token-of-mia')];
  const priceOf = async (planner, price) => {
    await planner.goto(`${TEAM}/row?region=jp&table=item&key=3`);
    await keepPrice(planner, price);
  };
  await priceOf(eddie, '333');
  await priceOf(mia, '444');
  page = eddie;
  await page.goto(`${TEAM}/table?region=jp&table=item`);
  await expect('Eddie sees Mia at work on the table', (await text('main')).includes('Also editing item: Mia (1 edit)'));
  await shot('two-planners');
  page = mia;
  await page.goto(`${TEAM}/edits?region=jp`);
  await page.fill('#message', 'Price of item 3 (Mia)');
  await page.getByRole('button', { name: /^Commit as/ }).click();
  await expect('Mia committed', (await text('main')).includes('Price of item 3 (Mia)'));
  page = eddie;
  await page.goto(`${TEAM}/edits?region=jp`);
  await page.getByRole('button', { name: /^Commit as/ }).click();
  await expect('the stale edit is caught, naming who changed the cell and what it holds now',
    (await text('main')).includes('was changed since by Mia') && (await text('main')).includes('it holds `444` now'));
  await expect('when, in the project\'s zone', (await text('main')).includes('+09:00 (Price of item 3 (Mia))'));
  await expect('and Eddie\'s edit is kept', (await text('main')).includes('333'));
  await shot('stale-edit');

  // The merged state published, then the December release made current again — never
  // in one click: a page says what is served now and after, and asks why.
  page = await (await browser.newContext({ viewport })).newPage();
  await page.goto(`${BASE}/releases?region=jp`);
  await page.fill('#publish-message', 'Event prices');
  await page.getByRole('button', { name: 'Build and publish' }).click();
  await page.waitForSelector('text=Published: release');
  await page.getByRole('link', { name: 'Make current…' }).first().click();
  await expect('the rollback asks why', (await text('main')).includes('served after'));
  await page.fill('#reason', 'The event prices go live tomorrow');
  await shot('rollback-confirm');
  await page.getByRole('button', { name: 'Roll back jp' }).click();
  await expect('rolled back, and said so', (await text('main')).includes('Rolled back: jp now serves release'));
  await page.goto(`${BASE}/audit`);
  const audit = await text('#audit');
  await expect('the audit log names each step', ['rolled back', 'published a release of', 'tagged jp', 'merged into masters/jp'].every((s) => audit.includes(s)));
  await shot('audit');

  // The same console in Japanese (a browser that asks for it): every page of the day —
  // the mistakes of an upload, its sheet, a value refused as typed, a grown table,
  // an error page — says nothing in English but what people wrote (a commit's message,
  // marked `translate="no"`). ENGLISH is the console's English words
  // file: a phrase of it anywhere, or a word of it as a whole text of its own, is
  // English left on a Japanese page.
  page = await (await browser.newContext({ viewport, locale: 'ja-JP' })).newPage();
  const english = fs.readFileSync(ENGLISH, 'utf8').split('\n')
    .filter((l) => !l.startsWith('#') && l.includes(' = '))
    .map((l) => l.split(' = ')[1].replace(/^: /, '').trim())
    .filter((v) => v.length > 3 && !v.includes('{'));
  const inJapanese = async (name) => {
    await expect(`${name}: <html lang="ja">`, await page.evaluate(() => document.documentElement.lang) === 'ja');
    const texts = await page.evaluate(() => {
      const all = [];
      // What people wrote (the data, a commit's message: `translate="no"`) is theirs,
      // as written; a part of it the console says (`translate="yes"`) is not.
      const written = (node) => node.parentElement.closest('code, style, script') !== null
        || node.parentElement.closest('[translate]')?.getAttribute('translate') === 'no';
      const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
      while (walker.nextNode()) {
        if (!written(walker.currentNode)) all.push(walker.currentNode.textContent.trim());
      }
      return all.filter((t) => t !== '');
    });
    const whole = texts.join('\n');
    // The console's own English words, and any English sentence (three lowercase
    // words, names in backquotes aside) the console's words file does not hold.
    const said = english.find((w) => (w.includes(' ') ? whole.includes(w) : texts.includes(w)))
      || texts.find((t) => t.replace(/`[^`]*`/g, '').split(/\s+/)
        .filter((w) => /^[a-z]+[,.:;]?$/.test(w)).length >= 3);
    await expect(`${name} says nothing in English (it says "${said}")`, said === undefined);
    await shot(`ja-${name}`);
  };
  for (const [name, address] of [
    ['regions', '/'], ['tables', '/tables?region=jp'], ['history', '/history?region=jp'],
    ['table', '/table?region=jp&table=item'], ['row', '/row?region=jp&table=item&key=2'],
    ['blame', '/blame?region=jp&table=item&key=2'], ['edits', '/edits?region=jp'],
    ['releases', '/releases?region=jp'], ['audit', '/audit'], ['import', '/import?region=jp'],
    ['translations', '/translations?region=jp'], ['rebase', '/join?kind=rebase&region=global'],
  ]) {
    await page.goto(`${BASE}${address}`);
    await inJapanese(name);
  }
  await page.goto(`${BASE}/table?region=jp&table=no_such_table`);
  await expect('an error page in Japanese', (await text('h1')) === '見つかりません');
  await inJapanese('error');
  // The upload with a mistake: the mistake said in Japanese, its sheet too.
  await page.goto(`${BASE}/import?region=jp`);
  await page.setInputFiles('#files', BROKEN);
  await page.getByRole('button', { name: '確認する' }).click();
  await expect('the mistake in Japanese', (await text('#diagnostics')).includes('「abc」は price の型（int）として読めません'));
  await inJapanese('diagnostics');
  await page.locator('#diagnostics a').first().click();
  await expect('the marked cell says why in Japanese', (await text('td.bad')).includes('読めません'));
  await inJapanese('sheet');
  // A translation file with a failing unit: the failure in Japanese.
  await page.goto(`${BASE}/translations?region=jp`);
  await page.setInputFiles('#file', BROKEN_PO);
  await page.getByRole('button', { name: '確認する' }).click();
  await expect('the failing unit named, in Japanese', (await text('#failures')).includes('プレースホルダー')
    && (await text('#failures')).includes('「HPを<color=green>{amount}</color>回復する」の訳'));
  await inJapanese('translation-failing');
  // A price typed past the maximum, refused as it is typed, in Japanese.
  await page.goto(`${BASE}/row?region=jp&table=item&key=2`);
  await page.locator('input[name="v.price"]').fill('2000000');
  await page.waitForSelector('input[name="v.price"] + .checked.bad');
  await expect('refused as typed, in Japanese', (await text('input[name="v.price"] + .checked')).includes('最大値 1000000 を超えています'));
  await inJapanese('row-typed');
  // The table grown by scrolling: the words under it are Japanese.
  await page.goto(`${BASE}/table?region=jp&table=item&rows=2`);
  await page.locator('#more-rows').scrollIntoViewIfNeeded();
  await page.waitForFunction(() => document.querySelectorAll('#rows tbody tr').length > 2);
  await inJapanese('table-scrolled');
} finally {
  await browser.close();
}
console.log(`${count()} steps`);
