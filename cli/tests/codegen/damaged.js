// A damaged file is a MastersError when the build opens, never another error, then or
// later: every cut of item.bin, and every byte of it changed, then every getter of every
// row read. Usage: node damaged.js BUILD (next to out/masters.js).
const { Masters, MastersError } = require('./out/masters.js');
const fs = require('fs');
const dir = process.argv[2];
const itemPath = 'client/tables/item.bin';
const whole = fs.readFileSync(dir + '/' + itemPath);
const open = (item) => new Masters((p) => p === itemPath ? item : fs.readFileSync(dir + '/' + p), 'en');
const wrong = [];
for (let cut = 0; cut < whole.length; cut++) {
  try { open(whole.subarray(0, cut)); wrong.push('cut ' + cut + ' opened'); }
  catch (e) { if (!(e instanceof MastersError)) wrong.push('cut ' + cut + ': ' + e); }
}
let opened = 0;
for (let at = 0; at < whole.length; at++) {
  const item = Buffer.from(whole); item[at] ^= 0xa5;
  let m;
  try { m = open(item); } catch (e) { if (!(e instanceof MastersError)) wrong.push('byte ' + at + ': ' + e); continue; }
  opened++;
  try {
    for (const row of m.item) {
      for (const name of Object.getOwnPropertyNames(Object.getPrototypeOf(row))) { if (name !== 'constructor') row[name]; }
      m.item.get(row.id); m.item.byCategoryId(row.categoryId);
    }
  } catch (e) { wrong.push('byte ' + at + ' reading: ' + e); }
}
console.log('damaged: ' + (wrong.length ? wrong.slice(0, 8).join('; ') + ' (' + wrong.length + ')' : 'ok') + (opened ? '' : ' (none opened)'));
