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
    this.head.setAttribute('role', 'row');
    for (const c of columns) {
      const s = document.createElement('span');
      s.className = c.cls;
      s.textContent = c.title;
      s.setAttribute('role', 'columnheader');
      if (c.key && onSort) {
        s.tabIndex = 0;
        s.addEventListener('click', () => onSort(c.key));
        s.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); e.stopPropagation(); onSort(c.key); } });
      }
      this.head.appendChild(s);
    }
    this.body = document.createElement('div');
    this.body.style.position = 'relative';
    host.textContent = '';
    host.appendChild(this.head);
    host.appendChild(this.body);
    host.tabIndex = 0;
    // A grid for assistive technology: rows and cells by role, the row count, the sort order.
    host.setAttribute('role', 'grid');
    host.setAttribute('aria-colcount', String(columns.length));
    host.addEventListener('scroll', () => this.paint());
    // Keyboard: arrows, Page Up/Down, Home/End move the selection (onMove(row)); Enter activates it (onEnter(row, key)).
    this.onMove = null;
    this.onEnter = null;
    host.addEventListener('keydown', (e) => {
      if (!this.onMove || this.count === 0) return;
      const page = Math.max(1, Math.floor((host.clientHeight - 24) / ROW_H) - 1);
      const at = this.selected;
      const to = { ArrowDown: at + 1, ArrowUp: at - 1, PageDown: at + page, PageUp: at - page, Home: 0, End: this.count - 1 }[e.key];
      if (to !== undefined) {
        e.preventDefault();
        e.stopPropagation();
        const r = Math.min(this.count - 1, Math.max(0, at < 0 ? 0 : to));
        this.onMove(r);
        this.scrollTo(r);
      } else if ((e.key === 'Enter' || e.key === 'ArrowRight' || e.key === 'ArrowLeft') && this.onEnter && at >= 0) {
        e.preventDefault();
        e.stopPropagation();
        this.onEnter(at, e.key);
      }
    });
  }

  setCount(n) {
    this.count = n;
    this.host.setAttribute('aria-rowcount', String(n + 1));
    this.body.style.height = n * ROW_H + 'px';
    this.paint();
  }

  setSortMark(key, desc) {
    this.columns.forEach((c, k) => {
      this.head.children[k].textContent = c.title + (c.key === key ? (desc ? ' ▼' : ' ▲') : '');
      this.head.children[k].setAttribute('aria-sort', c.key === key ? (desc ? 'descending' : 'ascending') : 'none');
    });
  }

  scrollTo(row) {
    const top = row * ROW_H, h = this.host.clientHeight - 24;
    if (top < this.host.scrollTop || top > this.host.scrollTop + h) {
      this.host.scrollTop = Math.max(0, top - h / 2);
      this.paint();
    }
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
      row.setAttribute('role', 'row');
      row.setAttribute('aria-rowindex', String(r + 2));
      row.setAttribute('aria-selected', String(r === this.selected));
      this.render(r, row);
      for (const c of row.children) c.setAttribute('role', 'gridcell');
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
