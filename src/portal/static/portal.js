// Progressive enhancement only: every form works without this file.
// A form with data-confirm asks before it is sent.
document.addEventListener('submit', (event) => {
  const form = event.target;
  if (!(form instanceof HTMLFormElement)) return;
  const question = form.dataset.confirm;
  if (question !== undefined && !window.confirm(question)) event.preventDefault();
});
