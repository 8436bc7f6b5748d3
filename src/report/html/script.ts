/** The filter and search of the failures tables; the page reads whole without it. No network, no eval. */
export const SCRIPT = `
(function () {
  var box = document.getElementById('filters');
  if (!box) return;
  box.hidden = false;
  var checks = Array.prototype.slice.call(box.querySelectorAll('input[type=checkbox]'));
  var search = document.getElementById('search');
  var shown = document.getElementById('shown');
  var tables = Array.prototype.slice.call(document.querySelectorAll('#problems tbody')).map(function (body) {
    var rows = Array.prototype.slice.call(body.querySelectorAll('tr[data-outcome]')).map(function (tr) {
      return { tr: tr, outcome: tr.getAttribute('data-outcome'), text: tr.textContent.toLowerCase() };
    });
    var empty = document.createElement('tr');
    empty.className = 'empty';
    empty.hidden = true;
    var cell = document.createElement('td');
    cell.colSpan = 5;
    cell.textContent = 'No row matches the filter.';
    empty.appendChild(cell);
    body.appendChild(empty);
    return { rows: rows, empty: empty };
  });
  function apply() {
    var on = {};
    checks.forEach(function (c) { on[c.value] = c.checked; });
    var words = search.value.toLowerCase().split(/\\s+/).filter(Boolean);
    var counts = tables.map(function (table) {
      var visible = 0;
      table.rows.forEach(function (row) {
        var match = on[row.outcome] === true && words.every(function (w) { return row.text.indexOf(w) !== -1; });
        row.tr.hidden = !match;
        if (match) visible++;
      });
      table.empty.hidden = visible > 0;
      return visible.toLocaleString('en-US') + ' of ' + table.rows.length.toLocaleString('en-US');
    });
    shown.textContent = 'Showing ' + counts[0] + ' error groups and ' + counts[1] + ' rows.';
  }
  checks.forEach(function (c) { c.addEventListener('change', apply); });
  search.addEventListener('input', apply);
  apply();
})();
`;
