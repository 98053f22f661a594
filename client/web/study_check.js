// Member checking on a participant's link (client/web/study/pages.py): confirm, correct an answer, or withdraw.
// Posts JSON to /study/<sid>/check/<token> (csrf.js adds the X-Colloquy-CSRF header), then reloads the page, which
// the server renders in the participant's language.
"use strict";
(function () {
  const url = location.pathname.replace("/join/", "/check/");
  const status = document.getElementById("check-status");
  async function send(body) {
    try {
      const r = await fetch(url, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
      const data = await r.json();
      if (!r.ok) throw new Error(data.error || r.statusText);
      location.reload();
    } catch (e) { status.textContent = e.message; }
  }
  document.querySelectorAll("form.correct").forEach((form) => form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    send({ action: "correct", entry_id: form.dataset.entry, text: form.elements.text.value });
  }));
  const confirmButton = document.getElementById("confirm");
  if (confirmButton) confirmButton.addEventListener("click", () => send({ action: "checked" }));
  const withdraw = document.getElementById("withdraw");
  if (withdraw) withdraw.addEventListener("click", () => { if (window.confirm(withdraw.dataset.confirm)) send({ action: "withdraw" }); });
})();
