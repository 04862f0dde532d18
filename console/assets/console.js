// The console's one script (served from /assets/console.js; the pages work without it).
// Files dropped on an import or translation form go to its file picker; a form that
// starts long work says so while the server works; a value typed to resolve a conflict
// or edit a row is checked against its column's type and rules as it is typed (by the
// server's own parser).
(function () {
  'use strict';

  function names(files) {
    return Array.prototype.map.call(files, function (f) { return f.name; }).join(', ');
  }

  document.querySelectorAll('[data-drop]').forEach(function (zone) {
    var input = document.getElementById(zone.getAttribute('data-drop'));
    var chosen = zone.querySelector('.chosen');
    if (!input) return;
    function show() { if (chosen) chosen.textContent = names(input.files); }
    ['dragenter', 'dragover'].forEach(function (type) {
      zone.addEventListener(type, function (e) {
        e.preventDefault();
        zone.classList.add('over');
      });
    });
    ['dragleave', 'drop'].forEach(function (type) {
      zone.addEventListener(type, function (e) {
        e.preventDefault();
        zone.classList.remove('over');
      });
    });
    zone.addEventListener('drop', function (e) {
      if (e.dataTransfer && e.dataTransfer.files.length) {
        input.files = e.dataTransfer.files;
        show();
      }
    });
    input.addEventListener('change', show);
  });

  document.querySelectorAll('form[data-busy]').forEach(function (form) {
    form.addEventListener('submit', function (e) {
      if (form.getAttribute('aria-busy') === 'true') {
        e.preventDefault();
        return;
      }
      form.setAttribute('aria-busy', 'true');
      var note = document.createElement('p');
      note.className = 'busy';
      note.setAttribute('role', 'status');
      note.textContent = form.getAttribute('data-busy');
      form.appendChild(note);
    });
  });

  document.querySelectorAll('[data-check]').forEach(function (input) {
    var timer = null;
    var said = document.createElement('span');
    said.className = 'checked';
    said.setAttribute('aria-live', 'polite');
    input.insertAdjacentElement('afterend', said);
    function check() {
      clearTimeout(timer);
      timer = setTimeout(function () {
        var url = input.getAttribute('data-check') + '&value=' + encodeURIComponent(input.value);
        fetch(url, { credentials: 'same-origin' }).then(function (response) {
          return response.text().then(function (text) {
            input.setCustomValidity(response.ok ? '' : text);
            said.textContent = response.ok ? (text ? '✓ ' + text : '✓') : text;
            said.className = response.ok ? (text ? 'checked ok noted' : 'checked ok') : 'checked bad';
          });
        });
      }, 150);
    }
    input.addEventListener('input', check);
    input.addEventListener('change', check);
  });
})();

// A list's or a map's cell edited item by item: the text input (what the form sends,
// items joined by `|`, a map's key and value by `:`, as canonical files write them)
// gives way to one input per item (a key and a value per entry), with buttons to add
// and remove them; each change writes the text again and checks it as typed. Without
// this script the text input is there as it is. Its words come from the input's data
// attributes, in the page's language.
(function () {
  'use strict';
  document.querySelectorAll('input[data-items]').forEach(function (input) {
    var map = input.getAttribute('data-items') === 'map';
    var editor = document.createElement('div');
    editor.className = 'items';
    editor.setAttribute('role', 'group');
    var label = document.querySelector('label[for="' + input.id + '"]');
    if (label) editor.setAttribute('aria-label', label.textContent);
    var list = document.createElement('ol');
    editor.appendChild(list);
    var add = document.createElement('button');
    add.type = 'button';
    add.className = 'add-item';
    add.textContent = input.getAttribute('data-add');
    editor.appendChild(add);
    function write() {
      var items = Array.prototype.map.call(list.children, function (li) {
        var parts = Array.prototype.map.call(li.querySelectorAll('input'), function (part) {
          return part.value.trim();
        });
        return parts.join(':');
      });
      input.value = items.join('|');
      input.dispatchEvent(new Event('input'));
    }
    function field(value, name) {
      var part = document.createElement('input');
      part.type = 'text';
      part.dir = 'auto';
      part.value = value;
      part.setAttribute('aria-label', name);
      part.addEventListener('input', write);
      return part;
    }
    function item(text) {
      var li = document.createElement('li');
      if (map) {
        var cut = text.indexOf(':');
        var key = cut < 0 ? text : text.slice(0, cut);
        var value = cut < 0 ? '' : text.slice(cut + 1);
        li.appendChild(field(key, input.getAttribute('data-key')));
        li.appendChild(document.createTextNode(' : '));
        li.appendChild(field(value, input.getAttribute('data-value')));
      } else {
        li.appendChild(field(text, input.getAttribute('data-value')));
      }
      var remove = document.createElement('button');
      remove.type = 'button';
      remove.className = 'remove-item';
      remove.textContent = '×';
      remove.title = input.getAttribute('data-remove');
      remove.setAttribute('aria-label', input.getAttribute('data-remove'));
      remove.addEventListener('click', function () {
        list.removeChild(li);
        write();
        add.focus();
      });
      li.appendChild(document.createTextNode(' '));
      li.appendChild(remove);
      list.appendChild(li);
      return li;
    }
    if (input.value !== '') input.value.split('|').forEach(item);
    add.addEventListener('click', function () {
      item('').querySelector('input').focus();
      write();
    });
    input.hidden = true;
    if (label) label.removeAttribute('for');
    input.insertAdjacentElement('afterend', editor);
  });
})();

// A table's grid grows as it is scrolled: when its end comes into view, the next page
// (the server pages it: its "Later rows" link) is fetched and its rows appended; rows
// far above are let go, so the browser holds a few pages of a table of any size. The
// links and the address stay those of the first page shown (paste them to a colleague).
// What it says comes from the grid's data attributes, in the page's language.
(function () {
  'use strict';
  var grid = document.getElementById('rows');
  var later = document.querySelector('#counts a[rel=next]');
  if (!grid || !later || !('IntersectionObserver' in window) || !window.DOMParser) return;
  var KEPT = 1500;
  var body = grid.tBodies[0];
  var next = later.href;
  var loading = false;
  var end = document.createElement('p');
  end.id = 'more-rows';
  end.className = 'muted';
  end.setAttribute('aria-live', 'polite');
  grid.parentNode.insertAdjacentElement('afterend', end);
  var observer = new IntersectionObserver(function (entries) {
    if (!entries[0].isIntersecting || loading || !next) return;
    loading = true;
    end.textContent = grid.getAttribute('data-loading');
    fetch(next, { credentials: 'same-origin' }).then(function (response) {
      if (!response.ok) throw new Error(String(response.status));
      return response.text();
    }).then(function (html) {
      var page = new DOMParser().parseFromString(html, 'text/html');
      var rows = page.querySelectorAll('#rows tbody tr');
      Array.prototype.forEach.call(rows, function (row) {
        row.removeAttribute('id');
        body.appendChild(document.importNode(row, true));
      });
      while (body.rows.length > KEPT) body.deleteRow(0);
      var more = page.querySelector('#counts a[rel=next]');
      next = more ? more.href : null;
      end.textContent = next ? '' : grid.getAttribute('data-last');
      loading = false;
    }).catch(function () {
      end.textContent = grid.getAttribute('data-failed');
      loading = false;
      next = null;
    });
  });
  observer.observe(end);
})();
