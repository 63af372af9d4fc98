// The settings window's sections as a vertical tab list (WAI-ARIA tabs): one
// tab stop, arrow keys / Home / End move between sections, and the section
// shown is kept in the URL's fragment (`settings.html#calendars`).

const tabs = [...document.querySelectorAll('[role=tab]')];
const DEFAULT_SECTION = 'api';

function sectionOf(tab) {
  return tab.id.replace(/^tab-/, '');
}

/** Shows `section`'s panel; `focus` moves the keyboard focus to its tab. */
export function showSection(section, { focus = false } = {}) {
  const chosen = tabs.find((tab) => sectionOf(tab) === section) ?? tabs.find((tab) => sectionOf(tab) === DEFAULT_SECTION);
  for (const tab of tabs) {
    const selected = tab === chosen;
    tab.setAttribute('aria-selected', String(selected));
    tab.tabIndex = selected ? 0 : -1;
    document.getElementById(tab.getAttribute('aria-controls')).hidden = !selected;
  }
  document.body.dataset.section = sectionOf(chosen);
  if (location.hash !== `#${sectionOf(chosen)}`) history.replaceState(null, '', `#${sectionOf(chosen)}`);
  if (focus) chosen.focus();
}

const KEY_STEPS = { ArrowDown: 1, ArrowRight: 1, ArrowUp: -1, ArrowLeft: -1 };

for (const tab of tabs) {
  tab.addEventListener('click', () => showSection(sectionOf(tab)));
  tab.addEventListener('keydown', (event) => {
    const at = tabs.indexOf(tab);
    let next = null;
    if (event.key in KEY_STEPS) next = tabs[(at + KEY_STEPS[event.key] + tabs.length) % tabs.length];
    else if (event.key === 'Home') next = tabs[0];
    else if (event.key === 'End') next = tabs[tabs.length - 1];
    if (!next) return;
    event.preventDefault();
    showSection(sectionOf(next), { focus: true });
  });
}

/**
 * Opens the section named in the URL (API & Security, where the window has
 * always opened and where a token allowed in a consent dialog is shown, when
 * none is named) with the focus on its tab, so Tab goes straight into it.
 */
export function startTabs() {
  showSection(location.hash.slice(1) || DEFAULT_SECTION, { focus: true });
}
