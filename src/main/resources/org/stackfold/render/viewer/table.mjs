// A virtual table: only the rows in view exist in the DOM, so 100,000 functions scroll smoothly.
// Cells are filled with textContent: names are text, never markup.

const ROW_H = 20;

export class VirtualTable {
  /** columns: [{title, cls, key (sort key or null)}]; render(rowIndex, rowElement) fills a row's cells. */
  constructor(host, columns, render, onSort) {
    this.host = host;
    this.columns = columns;
    this.render = render;
    this.count = 0;
    this.selected = -1;
    this.head = document.createElement('div');
    this.head.className = 'head';
    for (const c of columns) {
      const s = document.createElement('span');
      s.className = c.cls;
      s.textContent = c.title;
      if (c.key && onSort) s.addEventListener('click', () => onSort(c.key));
      this.head.appendChild(s);
    }
    this.body = document.createElement('div');
    this.body.style.position = 'relative';
    host.textContent = '';
    host.appendChild(this.head);
    host.appendChild(this.body);
    host.tabIndex = 0;
    host.addEventListener('scroll', () => this.paint());
  }

  setCount(n) {
    this.count = n;
    this.body.style.height = n * ROW_H + 'px';
    this.paint();
  }

  setSortMark(key, desc) {
    this.columns.forEach((c, k) => {
      this.head.children[k].textContent = c.title + (c.key === key ? (desc ? ' ▼' : ' ▲') : '');
    });
  }

  scrollTo(row) {
    const top = row * ROW_H, h = this.host.clientHeight - 24;
    if (top < this.host.scrollTop || top > this.host.scrollTop + h) this.host.scrollTop = Math.max(0, top - h / 2);
  }

  paint() {
    const top = this.host.scrollTop, h = this.host.clientHeight || 600;
    const first = Math.max(0, Math.floor(top / ROW_H) - 5), last = Math.min(this.count, Math.ceil((top + h) / ROW_H) + 5);
    this.body.textContent = '';
    for (let r = first; r < last; r++) {
      const row = document.createElement('div');
      row.className = 'row' + (r === this.selected ? ' selected' : '');
      row.style.top = r * ROW_H + 'px';
      row.dataset.row = String(r);
      this.render(r, row);
      this.body.appendChild(row);
    }
  }
}

/** A span with a class and text. */
export function cell(row, cls, text) {
  const s = document.createElement('span');
  s.className = cls;
  s.textContent = text;
  row.appendChild(s);
  return s;
}
