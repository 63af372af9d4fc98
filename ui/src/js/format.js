// Small display helpers shared by the windows.

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const dateOnly = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });

/** An instant (epoch ms, or an ISO string) as a local date and time; `fallback` when absent. */
export function formatDateTime(value, fallback = '—') {
  if (value === null || value === undefined || value === '') return fallback;
  const date = new Date(value);
  return Number.isNaN(date.valueOf()) ? String(value) : dateTime.format(date);
}

/** An instant as a local date; `fallback` when absent. */
export function formatDate(value, fallback = '—') {
  if (value === null || value === undefined || value === '') return fallback;
  const date = new Date(value);
  return Number.isNaN(date.valueOf()) ? String(value) : dateOnly.format(date);
}

/** Creates an element with attributes/properties and children. */
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (key === 'class') node.className = value;
    else if (key === 'dataset') Object.assign(node.dataset, value);
    else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
    else if (key in node) node[key] = value;
    else node.setAttribute(key, value);
  }
  node.append(...children.filter((c) => c !== null && c !== undefined));
  return node;
}

/** Error text from a rejected command (the shell rejects with a string). */
export function errorText(error) {
  return typeof error === 'string' ? error : (error?.message ?? String(error));
}
