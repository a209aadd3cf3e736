// Progressive enhancement only: every form works without this file.
// A form with data-confirm asks before it is sent.
document.addEventListener('submit', (event) => {
  const form = event.target;
  if (!(form instanceof HTMLFormElement)) return;
  const question = form.dataset.confirm;
  if (question !== undefined && !window.confirm(question)) event.preventDefault();
});

// Phone width: the navigation folds behind a Menu button (without this file it stays open).
const menuButton = document.querySelector('button.menu-button');
const portalNav = document.getElementById('portal-nav');
if (menuButton instanceof HTMLButtonElement && portalNav !== null) {
  menuButton.hidden = false;
  portalNav.classList.add('foldable');
  menuButton.addEventListener('click', () => {
    const open = menuButton.getAttribute('aria-expanded') !== 'true';
    menuButton.setAttribute('aria-expanded', String(open));
    portalNav.classList.toggle('open', open);
  });
}

// Phone width: table rows reflow into label/value lines; each cell is labelled by its column.
for (const table of document.querySelectorAll('.table-wrap table')) {
  const heads = [...table.querySelectorAll('thead th')].map((th) => th.textContent.trim());
  if (heads.length === 0) continue;
  for (const row of table.querySelectorAll('tbody tr')) {
    [...row.children].forEach((cell, i) => {
      if (heads[i]) cell.setAttribute('data-label', heads[i]);
    });
  }
  table.classList.add('reflow');
}
